// A small stack-machine interpreter with a hash table of globals: structs,
// unions, switches, function pointers, varargs, recursion and libc calls.
// REQUIRES: clang
// RUN: %clang -S -emit-llvm -O0 %s -o %t.O0.ll
// RUN: %roundtrip %t.O0.ll
// RUN: %clang -S -emit-llvm -O2 %s -o %t.O2.ll
// RUN: %roundtrip %t.O2.ll
// RUN: %clang -S -emit-llvm -O3 -march=native %s -o %t.O3.ll
// RUN: %roundtrip %t.O3.ll
// RUN: %clang -S -emit-llvm -O0 -g %s -o %t.g.ll
// RUN: %roundtrip %t.g.ll
// RUN: %clang -S -emit-llvm -O2 -g %s -o %t.O2g.ll
// RUN: %roundtrip %t.O2g.ll
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum Op { PUSH, ADD, SUB, MUL, DIV, DUP, SWAP, JZ, JMP, LOAD, STORE, PRINT, CALL, RET, HALT };

typedef struct { enum Op op; int64_t arg; } Insn;
typedef union { int64_t i; double d; void *p; } Cell;

typedef struct Entry { char *key; Cell value; struct Entry *next; } Entry;
typedef struct { Entry **buckets; size_t size, count; } Table;

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

static void table_init(Table *t, size_t size) {
  t->buckets = calloc(size, sizeof(Entry *));
  t->size = size;
  t->count = 0;
}

static Cell *table_get(Table *t, const char *key, int create) {
  uint64_t h = hash(key) % t->size;
  for (Entry *e = t->buckets[h]; e; e = e->next)
    if (strcmp(e->key, key) == 0) return &e->value;
  if (!create) return NULL;
  Entry *e = malloc(sizeof *e);
  e->key = strdup(key);
  e->value.i = 0;
  e->next = t->buckets[h];
  t->buckets[h] = e;
  t->count++;
  return &e->value;
}

static void table_free(Table *t) {
  for (size_t i = 0; i < t->size; ++i)
    for (Entry *e = t->buckets[i], *n; e; e = n) { n = e->next; free(e->key); free(e); }
  free(t->buckets);
}

static int logf_count;
static void logmsg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  logf_count++;
}

typedef int64_t (*BinFn)(int64_t, int64_t);
static int64_t f_add(int64_t a, int64_t b) { return a + b; }
static int64_t f_sub(int64_t a, int64_t b) { return a - b; }
static int64_t f_mul(int64_t a, int64_t b) { return a * b; }
static int64_t f_div(int64_t a, int64_t b) { return b ? a / b : 0; }
static const BinFn binops[] = {[ADD] = f_add, [SUB] = f_sub, [MUL] = f_mul, [DIV] = f_div};

int64_t run(const Insn *code, size_t n, Table *globals) {
  Cell stack[256];
  size_t sp = 0, pc = 0, calls[64], csp = 0;
  char name[32];
  while (pc < n) {
    const Insn in = code[pc++];
    switch (in.op) {
    case PUSH: stack[sp++].i = in.arg; break;
    case ADD: case SUB: case MUL: case DIV: {
      int64_t b = stack[--sp].i, a = stack[--sp].i;
      stack[sp++].i = binops[in.op](a, b);
      break;
    }
    case DUP: stack[sp] = stack[sp - 1]; sp++; break;
    case SWAP: { Cell t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; break; }
    case JZ: if (stack[--sp].i == 0) pc = (size_t)in.arg; break;
    case JMP: pc = (size_t)in.arg; break;
    case LOAD: snprintf(name, sizeof name, "g%lld", (long long)in.arg);
      stack[sp++] = *table_get(globals, name, 1); break;
    case STORE: snprintf(name, sizeof name, "g%lld", (long long)in.arg);
      *table_get(globals, name, 1) = stack[--sp]; break;
    case PRINT: logmsg("%lld\n", (long long)stack[sp - 1].i); break;
    case CALL: calls[csp++] = pc; pc = (size_t)in.arg; break;
    case RET: if (!csp) return stack[sp - 1].i; pc = calls[--csp]; break;
    case HALT: return sp ? stack[sp - 1].i : 0;
    }
  }
  return -1;
}

static int64_t fib(int64_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  Table t;
  table_init(&t, 64);
  // sum = 0; i = 10; while (i) { sum += i; i -= 1; } print sum
  const Insn prog[] = {
      {PUSH, 0}, {STORE, 0}, {PUSH, 10}, {STORE, 1},
      {LOAD, 1}, {JZ, 15}, {LOAD, 0}, {LOAD, 1}, {ADD, 0}, {STORE, 0},
      {LOAD, 1}, {PUSH, 1}, {SUB, 0}, {STORE, 1}, {JMP, 4},
      {LOAD, 0}, {PRINT, 0}, {HALT, 0}};
  int64_t r = run(prog, sizeof prog / sizeof *prog, &t);
  int64_t v[16];
  for (int i = 0; i < 16; ++i) v[i] = fib(i % 12) * (i & 1 ? -1 : 1);
  qsort(v, 16, sizeof *v, cmp_i64);
  double mean = 0;
  for (int i = 0; i < 16; ++i) mean += (double)v[i] / 16;
  printf("%lld %zu %.3f %d\n", (long long)r, t.count, mean, argc > 1 ? atoi(argv[1]) : 0);
  table_free(&t);
  return r == 55 ? 0 : 1;
}
