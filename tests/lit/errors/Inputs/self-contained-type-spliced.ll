; SPLICED: self-contained-type-spliced.ll:[[@LINE+1]]:1: error: '%"in array"' contains itself, not a pointer to itself
%"in array" = type { $type:T }
declare void @g(...)

define void @call() {
  call void (...) @g(%"in array" zeroinitializer)
  ret void
}
