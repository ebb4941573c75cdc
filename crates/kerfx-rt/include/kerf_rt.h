/* kerf_rt.h: kerf's runtime library, ABI 1 (hand-written; the C declarations of
 * crates/kerfx-rt). Objects written by `kerf aot` call these functions; a program links
 * them from libkerfx_rt.a (`cargo build --release -p kerfx-rt`). Every symbol carries the
 * ABI major, so a runtime of another major fails at link time, naming the symbol.
 * Callers of the helpers are kerf's generated kernels, which pass only buffers they were
 * verified to own; programs call none of them but kerf_rt1_fence, and the planner's
 * kerf_rt1_plan_* functions below, which check every pointer and number they are given. */
#ifndef KERF_RT_H
#define KERF_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KERF_RT_ABI_MAJOR 1

/* Order this thread's non-temporal stores before what follows (a no-op off x86-64).
 * Every entry point of a kernel that streams calls it before it returns. */
void kerf_rt1_fence(void);

/* Copy n bytes (not overlapping) with non-temporal stores. */
void kerf_rt1_stream_copy(uint8_t *dst, const uint8_t *src, size_t n);
/* rows runs of row bytes, the source advancing stride bytes per run. */
void kerf_rt1_stream_rows(uint8_t *dst, const uint8_t *src, size_t rows, size_t row, ptrdiff_t stride);
/* outer blocks of kerf_rt1_stream_rows, block j at dst + j * rows * row, its source at
 * src + j * outer_stride. */
void kerf_rt1_stream_row_blocks(uint8_t *dst, const uint8_t *src, size_t outer, ptrdiff_t outer_stride, size_t rows,
                                size_t row, ptrdiff_t stride);
/* rows runs of row bytes, run k read at src + table[k] * scale. */
void kerf_rt1_stream_table_rows(uint8_t *dst, const uint8_t *src, size_t rows, size_t row, const int64_t *table,
                                ptrdiff_t scale);
/* n bytes of the 16-byte pattern (lo, hi), non-temporal. */
void kerf_rt1_stream_fill(uint8_t *dst, size_t n, uint64_t lo, uint64_t hi);
/* n f32 values start + k * coef (their bits in start and coef), non-temporal. */
void kerf_rt1_stream_linspace(uint8_t *dst, size_t n, uint64_t start, uint64_t coef);
/* n elements of w bytes read at stride 2 elements. */
void kerf_rt1_stream_stride2(uint8_t *dst, const uint8_t *src, size_t n, size_t w);
/* A rows x cols block of w-byte elements read with strides rs, cs and written rows of ds
 * bytes apart, in cache-sized tiles; stream != 0: non-temporal stores. */
void kerf_rt1_tile_copy(uint8_t *dst, const uint8_t *src, size_t rows, size_t cols, ptrdiff_t rs, ptrdiff_t cs,
                        ptrdiff_t ds, size_t w, size_t stream);
/* Repeat the first filled bytes of dst up to total bytes. */
void kerf_rt1_repeat(uint8_t *dst, size_t filled, size_t total);
/* The same for packed 4-bit elements, from nibble start. */
void kerf_rt1_repeat_nibbles(uint8_t *out, size_t start, size_t filled, size_t total);

/* A random fill's argument block (f32 bits of alpha and beta, the seed). */
typedef struct kerf_rt1_random_args {
    uint64_t alpha_bits;
    uint64_t beta_bits;
    uint64_t seed;
} kerf_rt1_random_args;
typedef char kerf_rt1_random_args_size[sizeof(kerf_rt1_random_args) == 24 ? 1 : -1];
/* Elements [lo, hi) of a random fill (kind: 2 * normal + f16; f32 elements of 4 bytes,
 * f16 of 2), Philox4x32-10 and kerf's transforms. Nothing happens unless 0 <= lo < hi
 * and 0 <= kind <= 3. */
void kerf_rt1_random_fill(uint8_t *out, const kerf_rt1_random_args *args, int64_t lo, int64_t hi, int64_t kind);
/* count elements of a fill head (a linspace or random fill; its block of int64_t words
 * written by kerf: kind, rank, alpha, then beta and seed or per axis stride, extent and
 * beta), element j being the fill's element start + stride * j. */
void kerf_rt1_head_run(uint8_t *out, const int64_t *head, int64_t start, int64_t stride, int64_t count);
#define KERF_RT1_HEAD_RANDOM_WORDS 5
#define KERF_RT1_HEAD_AXES 3
#define KERF_RT1_HEAD_AXIS_WORDS 3

/* The planner of dynamic kernels (kerf aot's ABI 1.3). A program builds a plan with a
 * kernel's typed constructor <lib>_<kernel>_plan (which passes its kernel's descriptor
 * and its parameters to kerf_rt1_plan_new), reads its buffer sizes, runs it with the
 * kernel's entry point <lib>_<kernel>(plan, ...) (which calls kerf_rt1_plan_run) any
 * number of times from any threads (a plan is immutable), and frees it. Every function
 * returns a KERF_* status of the generated header, or a size; none aborts or unwinds. */
typedef struct kerf_rt1_plan kerf_rt1_plan;
/* A dynamic kernel as its object describes it: the ABI major, its key (kind bits: 1
 * fills, 2 repeats; depth; dtype name) and its request template (text). */
typedef struct kerf_rt1_kernel {
    uint32_t abi_major;
    uint32_t kind;
    uint64_t depth;
    const char *dtype;
    const char *request;
} kerf_rt1_kernel;
/* One parameter: count int64 values (values may be NULL when count is 0). */
typedef struct kerf_rt1_param {
    const int64_t *values;
    size_t count;
} kerf_rt1_param;
/* The layouts the runtime was written with (64-bit targets; asserted in Rust too). */
typedef char kerf_rt1_kernel_size[sizeof(kerf_rt1_kernel) == 32 ? 1 : -1];
typedef char kerf_rt1_param_size[sizeof(kerf_rt1_param) == 16 ? 1 : -1];

/* Build a plan of `kernel` from the input's shape (rank dims) and its parameters, in the
 * kernel's order: KERF_OK and *plan set, or KERF_ERR_NULL, _RANK, _PARAM, _INVALID, _KIND
 * with *plan NULL and a message for kerf_rt1_plan_error. */
int32_t kerf_rt1_plan_new(const kerf_rt1_kernel *kernel, const uint64_t *shape, size_t rank,
                          const kerf_rt1_param *params, size_t param_count, kerf_rt1_plan **plan);
/* Free a plan (NULL is ignored). */
void kerf_rt1_plan_free(kerf_rt1_plan *plan);
/* The calling thread's last planner message (empty after a success), copied into buf
 * (capacity bytes, NUL-terminated, cut to fit); returns its whole length. */
size_t kerf_rt1_plan_error(char *buf, size_t capacity);
/* Bytes of the input a plan reads and of the output it writes (0 for NULL). */
uint64_t kerf_rt1_plan_input_bytes(const kerf_rt1_plan *plan);
uint64_t kerf_rt1_plan_output_bytes(const kerf_rt1_plan *plan);
/* The output's rank (0 for NULL); its first `capacity` dims copied to dims (if not NULL). */
size_t kerf_rt1_plan_output_shape(const kerf_rt1_plan *plan, uint64_t *dims, size_t capacity);
/* Run a plan on the kernel whose descriptor and code its entry point passes: KERF_ERR_PLAN
 * for NULL, KERF_ERR_PLAN_KIND for a plan of another kernel, then NULL buffers, lengths
 * and overlap, before anything is written. */
int32_t kerf_rt1_plan_run(const kerf_rt1_plan *plan, const kerf_rt1_kernel *kernel, void (*code)(void),
                          const void *input, size_t input_bytes, void *output, size_t output_bytes);

#ifdef __cplusplus
}
#endif

#endif /* KERF_RT_H */
