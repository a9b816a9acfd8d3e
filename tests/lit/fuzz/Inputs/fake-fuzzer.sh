# Stands in for a libFuzzer target: "ok" succeeds; "crash" saves an input
# (with a quote, a backslash, a percent sign and control bytes) and fails.
mode=$1
shift
for arg in "$@"; do
  case $arg in
  -artifact_prefix=*) prefix=${arg#-artifact_prefix=} ;;
  esac
done
echo "#1 NEW    cov: 1 ft: 1 corp: 1/1b"
if [ "$mode" = ok ]; then
  echo "Done 2 runs in 0 second(s)"
  echo "stat::number_of_executed_units: 2"
  exit 0
fi
echo "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1"
echo "    #0 0x1 in f"
printf 'define i32 @f() {\n  ret i32 %%x \\ \001\177'"'"'q\n' >"${prefix}crash-0"
exit 77
