//! Program kernels from C: a Concat of three inputs, a Split into two outputs, the graph
//! file tests/data/graph/roll.toml (two slices and a Concat run as one program), a graph
//! reading a constant the object holds, and two graphs whose moves run through scratch the
//! entry point allocates (a reshape last, dense then copied into its box; a chain cut in
//! two segments), compiled into one library; a driver including the
//! header checks every value, every error path (NULL, each wrong length, each overlap)
//! leaves the outputs untouched, every program split into ranges at every point (empty
//! and single-position ranges included) equals its whole call, bad ranges are refused,
//! and the info table's operand records; built as C99 and
//! C++11 with `-Wall -Wextra -Werror -pedantic`, linked as a PIE with `-Wl,-z,text`. The
//! object is deterministic and exports only the entry points and `<lib>_info`.

use kerfx_testkit::native::have;
use std::path::{Path, PathBuf};
use std::process::Command;

fn library(dir: &Path) -> PathBuf {
    let roll = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/graph/roll.toml");
    let files = [
        (
            "cat.toml",
            "op = \"onnx.concat\"\nversion = 13\n[attributes]\naxis = 1\n[inputs]\ninputs = [\
             { dtype = \"f32\", shape = [2, 3] }, { dtype = \"f32\", shape = [2, 1] }, \
             { dtype = \"f32\", shape = [2, 2] }]\n",
        ),
        (
            "split.toml",
            "op = \"onnx.split\"\nversion = 18\n[attributes]\naxis = 0\n\
             [inputs]\ninput = { dtype = \"i16\", shape = [5, 4] }\nsplit = [2, 3]\n",
        ),
        (
            "konst.toml",
            "outputs = [\"y\"]\n[inputs]\nx = { dtype = \"u8\", shape = [2, 2] }\n\
             [[nodes]]\nop = \"onnx.slice\"\nversion = 13\nwrites = [\"c\"]\n[nodes.inputs]\n\
             data = { dtype = \"u8\", shape = [2, 4], values = [10, 11, 12, 13, 14, 15, 16, 17] }\n\
             starts = [1]\nends = [3]\naxes = [1]\n\
             [[nodes]]\nop = \"onnx.concat\"\nversion = 13\nreads = { inputs = [\"x\", \"c\"] }\nwrites = [\"y\"]\n\
             [nodes.attributes]\naxis = 1\n",
        ),
        (
            // Packed 4-bit boxes: each dense into scratch, then placed nibble by nibble.
            "nib.toml",
            "op = \"openvino.concat\"\nversion = 1\n[attributes]\naxis = 1\n[inputs]\ninputs = [\
             { dtype = \"u4\", shape = [3, 1] }, { dtype = \"u4\", shape = [3, 2] }]\n",
        ),
        (
            // A reshape last: no output view expresses the map; dense scratch, then a copy.
            "fb.toml",
            "outputs = [\"z\"]\n[inputs]\na = { dtype = \"f32\", shape = [2, 3] }\nx = { dtype = \"f32\", shape = [2, 3] }\n\
             [[nodes]]\nop = \"onnx.transpose\"\nreads = { data = \"x\" }\nwrites = [\"t\"]\n[nodes.attributes]\nperm = [1, 0]\n\
             [[nodes]]\nop = \"onnx.reshape\"\nreads = { data = \"t\" }\nwrites = [\"y\"]\n[nodes.inputs]\nshape = [2, 3]\n\
             [[nodes]]\nop = \"onnx.concat\"\nversion = 13\nreads = { inputs = [\"a\", \"y\"] }\nwrites = [\"z\"]\n\
             [nodes.attributes]\naxis = 1\n",
        ),
        (
            // A chain cut in two (the reshape splits the axis the pad reads): its first
            // segment into scratch, the second through the box's view.
            "seg.toml",
            "outputs = [\"z\"]\n[inputs]\na = { dtype = \"f32\", shape = [3, 2] }\nx = { dtype = \"f32\", shape = [4] }\n\
             [[nodes]]\nop = \"onnx.pad\"\nversion = 19\nreads = { data = \"x\" }\nwrites = [\"t\"]\n\
             [nodes.attributes]\nmode = \"reflect\"\n[nodes.inputs]\npads = [1, 1]\n\
             [[nodes]]\nop = \"onnx.reshape\"\nreads = { data = \"t\" }\nwrites = [\"t2\"]\n[nodes.inputs]\nshape = [2, 3]\n\
             [[nodes]]\nop = \"onnx.transpose\"\nreads = { data = \"t2\" }\nwrites = [\"y\"]\n[nodes.attributes]\nperm = [1, 0]\n\
             [[nodes]]\nop = \"onnx.concat\"\nversion = 13\nreads = { inputs = [\"a\", \"y\"] }\nwrites = [\"z\"]\n\
             [nodes.attributes]\naxis = 1\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    std::fs::write(
        dir.join("lib.toml"),
        format!(
            "name = \"pg\"\n\
             [[kernels]]\nname = \"cat\"\nrequest = \"cat.toml\"\n\
             [[kernels]]\nname = \"split\"\nrequest = \"split.toml\"\n\
             [[kernels]]\nname = \"roll\"\nrequest = {:?}\n\
             [[kernels]]\nname = \"konst\"\nrequest = \"konst.toml\"\n\
             [[kernels]]\nname = \"fb\"\nrequest = \"fb.toml\"\n\
             [[kernels]]\nname = \"seg\"\nrequest = \"seg.toml\"\n\
             [[kernels]]\nname = \"nib\"\nrequest = \"nib.toml\"\n",
            roll.display().to_string()
        ),
    )
    .unwrap();
    dir.join("lib.toml")
}

fn compile(dir: &Path, triple: &str) -> kerfx_aot::Output {
    let lib = kerfx_aot::Library::load(&library(dir)).unwrap();
    kerfx_aot::compile(&lib, &kerfx_aot::Target::aot(triple).unwrap()).unwrap()
}

const DRIVER: &str = r#"
#include "pg.h"
#include <stdio.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond) do { if (!(cond)) { printf("FAILED line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

static int untouched(const unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) if (p[i] != 0xAB) return 0;
    return 1;
}

/* The ranges of a program of E positions, CALL an expression of lo and hi writing the N
 * bytes at OUT: every split in two (empty pieces included), then every position alone in
 * reverse order with an empty range at each bound, each leaving OUT equal to the N bytes
 * at WANT (the whole call's); then bad ranges are refused, nothing written. */
#define CHECK_RANGES(E, CALL, OUT, N, WANT) do { \
    size_t m_, lo, hi; \
    for (m_ = 0; m_ <= (E); m_++) { \
        memset((OUT), 0xAB, (N)); \
        lo = 0; hi = m_; EXPECT((CALL) == KERF_OK); \
        lo = m_; hi = (E); EXPECT((CALL) == KERF_OK); \
        EXPECT(memcmp((OUT), (WANT), (N)) == 0); \
    } \
    memset((OUT), 0xAB, (N)); \
    for (m_ = (E); m_ > 0; m_--) { \
        lo = m_ - 1; hi = m_; EXPECT((CALL) == KERF_OK); \
        lo = m_; hi = m_; EXPECT((CALL) == KERF_OK); \
    } \
    EXPECT(memcmp((OUT), (WANT), (N)) == 0); \
    memset((OUT), 0xAB, (N)); \
    lo = 1; hi = 0; EXPECT((CALL) == KERF_ERR_RANGE); \
    lo = 0; hi = (E) + 1; EXPECT((CALL) == KERF_ERR_RANGE); \
    lo = (E) + 1; hi = (E) + 1; EXPECT((CALL) == KERF_ERR_RANGE); \
    EXPECT(untouched((const unsigned char *)(OUT), (N))); \
} while (0)

int main(void) {
    const kerf_library_info *lib = pg_info();
    size_t i, r, c;
    {
        /* Concat on axis 1 of [2, 3], [2, 1], [2, 2] into [2, 6]. */
        float a[6], b[2], d[4], y[12];
        static const uint64_t shape[] = PG_CAT_OUT0_SHAPE;
        unsigned char big[sizeof a + sizeof y];
        for (i = 0; i < 6; i++) a[i] = (float)(10 + i);
        for (i = 0; i < 2; i++) b[i] = (float)(20 + i);
        for (i = 0; i < 4; i++) d[i] = (float)(30 + i);
        EXPECT(PG_CAT_INPUT_COUNT == 3 && PG_CAT_OUTPUT_COUNT == 1 && shape[0] == 2 && shape[1] == 6);
        EXPECT(PG_CAT_IN0_BYTES == sizeof a && PG_CAT_IN1_BYTES == sizeof b && PG_CAT_IN2_BYTES == sizeof d);
        EXPECT(PG_CAT_OUT0_BYTES == sizeof y && PG_CAT_OUT0_RANK == 2 && strcmp(PG_CAT_DTYPE, "f32") == 0);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b, d, sizeof d, y, sizeof y) == KERF_OK);
        for (r = 0; r < 2; r++) {
            for (c = 0; c < 3; c++) EXPECT(y[6 * r + c] == a[3 * r + c]);
            EXPECT(y[6 * r + 3] == b[r]);
            for (c = 0; c < 2; c++) EXPECT(y[6 * r + 4 + c] == d[2 * r + c]);
        }
        /* Every error is reported before anything is written. */
        memset(y, 0xAB, sizeof y);
        EXPECT(pg_cat(NULL, sizeof a, b, sizeof b, d, sizeof d, y, sizeof y) == KERF_ERR_NULL);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b, NULL, sizeof d, y, sizeof y) == KERF_ERR_NULL);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b, d, sizeof d, NULL, sizeof y) == KERF_ERR_NULL);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b - 1, d, sizeof d, y, sizeof y) == KERF_ERR_INPUT_BYTES);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b, d, sizeof d + 4, y, sizeof y) == KERF_ERR_INPUT_BYTES);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b, d, sizeof d, y, sizeof y - 4) == KERF_ERR_OUTPUT_BYTES);
        EXPECT(untouched((const unsigned char *)y, sizeof y));
        /* The output overlapping an input (either side, one byte), then just touching it. */
        memset(big, 0xAB, sizeof big);
        EXPECT(pg_cat(big, sizeof a, b, sizeof b, d, sizeof d, big + sizeof a - 1, sizeof y) == KERF_ERR_OVERLAP);
        EXPECT(pg_cat(a, sizeof a, b, sizeof b, big + sizeof y - 1, sizeof d, big, sizeof y) == KERF_ERR_OVERLAP);
        EXPECT(untouched(big, sizeof big));
        EXPECT(pg_cat(big, sizeof a, b, sizeof b, d, sizeof d, big + sizeof a, sizeof y) == KERF_OK);
        /* Inputs may alias each other: they are only read. */
        EXPECT(pg_cat(a, sizeof a, a, sizeof b, a, sizeof d, y, sizeof y) == KERF_OK);
        EXPECT(y[3] == a[0] && y[4] == a[0] && y[5] == a[1]);
    }
    {
        /* Split [5, 4] on axis 0 into [2, 4] and [3, 4]. */
        int16_t x[20], p[8], q[12];
        unsigned char big[sizeof p + sizeof q];
        for (i = 0; i < 20; i++) x[i] = (int16_t)(i * 3 - 7);
        EXPECT(PG_SPLIT_INPUT_COUNT == 1 && PG_SPLIT_OUTPUT_COUNT == 2);
        EXPECT(PG_SPLIT_OUT0_BYTES == sizeof p && PG_SPLIT_OUT1_BYTES == sizeof q);
        EXPECT(pg_split(x, sizeof x, p, sizeof p, q, sizeof q) == KERF_OK);
        EXPECT(memcmp(p, x, sizeof p) == 0 && memcmp(q, x + 8, sizeof q) == 0);
        memset(p, 0xAB, sizeof p);
        memset(q, 0xAB, sizeof q);
        EXPECT(pg_split(x, sizeof x, p, sizeof p, NULL, sizeof q) == KERF_ERR_NULL);
        EXPECT(pg_split(x, sizeof x - 2, p, sizeof p, q, sizeof q) == KERF_ERR_INPUT_BYTES);
        EXPECT(pg_split(x, sizeof x, p, sizeof p, q, sizeof q - 1) == KERF_ERR_OUTPUT_BYTES);
        EXPECT(pg_split(x, sizeof x, p, sizeof p + 2, q, sizeof q) == KERF_ERR_OUTPUT_BYTES);
        /* The two outputs overlapping each other; an output overlapping the input. */
        EXPECT(pg_split(x, sizeof x, (int16_t *)(void *)big, sizeof p, big + sizeof p - 1, sizeof q) == KERF_ERR_OVERLAP);
        EXPECT(pg_split(x, sizeof x, p, sizeof p, x + 19, sizeof q) == KERF_ERR_OVERLAP);
        EXPECT(untouched((const unsigned char *)p, sizeof p) && untouched((const unsigned char *)q, sizeof q));
        EXPECT(pg_split(x, sizeof x, (int16_t *)(void *)big, sizeof p, big + sizeof p, sizeof q) == KERF_OK);
        EXPECT(memcmp(big, x, sizeof big) == 0);
    }
    {
        /* roll.toml: y = concat(x[:, 3:8], x[:, 0:3]) on axis 1, a roll by 3. */
        float x[16], y[16];
        EXPECT(PG_ROLL_INPUT_COUNT == 1 && PG_ROLL_OUTPUT_COUNT == 1);
        EXPECT(strcmp(PG_ROLL_IN0_NAME, "x") == 0 && strcmp(PG_ROLL_OUT0_NAME, "y") == 0);
        for (i = 0; i < 16; i++) x[i] = (float)i;
        EXPECT(pg_roll(x, sizeof x, y, sizeof y) == KERF_OK);
        for (r = 0; r < 2; r++)
            for (c = 0; c < 8; c++) EXPECT(y[8 * r + c] == x[8 * r + (c + 3) % 8]);
        EXPECT(pg_roll(x, sizeof x, x + 15, sizeof y) == KERF_ERR_OVERLAP);
    }
    {
        /* konst: y = concat(x, c) with c a constant slice the object holds. */
        unsigned char x[4] = {1, 2, 3, 4}, y[8];
        static const unsigned char want[8] = {1, 2, 11, 12, 3, 4, 15, 16};
        EXPECT(PG_KONST_INPUT_COUNT == 1 && PG_KONST_OUT0_BYTES == 8);
        EXPECT(pg_konst(x, sizeof x, y, sizeof y) == KERF_OK);
        EXPECT(memcmp(y, want, sizeof y) == 0);
    }
    {
        /* fb: z = concat(a, reshape(transpose(x), [2, 3])) on axis 1, through scratch. */
        float a[6], x[6], z[12];
        EXPECT(PG_FB_INPUT_COUNT == 2 && strcmp(PG_FB_IN0_NAME, "a") == 0 && strcmp(PG_FB_IN1_NAME, "x") == 0);
        EXPECT(PG_FB_SCRATCH_BYTES > 0 && PG_CAT_SCRATCH_BYTES == 0);
        for (i = 0; i < 6; i++) { a[i] = (float)(100 + i); x[i] = (float)i; }
        EXPECT(pg_fb(a, sizeof a, x, sizeof x, z, sizeof z) == KERF_OK);
        for (r = 0; r < 2; r++)
            for (c = 0; c < 3; c++) {
                size_t k = 3 * r + c;
                EXPECT(z[6 * r + c] == a[3 * r + c]);
                EXPECT(z[6 * r + 3 + c] == x[(k % 2) * 3 + k / 2]);
            }
        memset(z, 0xAB, sizeof z);
        EXPECT(pg_fb(a, sizeof a, x, sizeof x - 4, z, sizeof z) == KERF_ERR_INPUT_BYTES);
        EXPECT(pg_fb(a, sizeof a, x, sizeof x, NULL, sizeof z) == KERF_ERR_NULL);
        EXPECT(untouched((const unsigned char *)z, sizeof z));
    }
    {
        /* seg: z = concat(a, transpose(reshape(pad_reflect(x, 1, 1), [2, 3]))) on axis 1. */
        float a[6], x[4], z[12], t[6];
        for (i = 0; i < 6; i++) a[i] = (float)(50 + i);
        for (i = 0; i < 4; i++) x[i] = (float)(i * i + 1);
        t[0] = x[1]; t[5] = x[2];
        for (i = 0; i < 4; i++) t[i + 1] = x[i];
        EXPECT(PG_SEG_SCRATCH_BYTES > 0 && PG_SEG_OUT0_BYTES == sizeof z);
        EXPECT(pg_seg(a, sizeof a, x, sizeof x, z, sizeof z) == KERF_OK);
        for (r = 0; r < 3; r++)
            for (c = 0; c < 2; c++) {
                EXPECT(z[4 * r + c] == a[2 * r + c]);
                EXPECT(z[4 * r + 2 + c] == t[3 * c + r]);
            }
    }
    {
        /* nib: u4 [3, 1] and [3, 2] concatenated on axis 1 into [3, 3]: 9 nibbles, low
         * first, the last byte's high half zeroed. */
        unsigned char a[2] = {0x21, 0x03}, d[3] = {0x54, 0x76, 0x98}, y[5];
        static const unsigned char want[5] = {0x41, 0x25, 0x76, 0x83, 0x09};
        EXPECT(PG_NIB_OUT0_BYTES == 5 && PG_NIB_IN0_BYTES == 2 && PG_NIB_IN1_BYTES == 3);
        memset(y, 0xFF, sizeof y);
        EXPECT(pg_nib(a, sizeof a, d, sizeof d, y, sizeof y) == KERF_OK);
        EXPECT(memcmp(y, want, sizeof y) == 0);
    }
    {
        /* Every program split into ranges equals its whole call. */
        unsigned char in0[64], in1[64], in2[64], want[64], got[64];
        for (i = 0; i < 64; i++) { in0[i] = (unsigned char)(i * 7 + 1); in1[i] = (unsigned char)(i * 13 + 5); in2[i] = (unsigned char)(i * 3 + 9); }
        EXPECT(PG_CAT_RANGE_EXTENT > 1 && PG_CAT_RANGE_ALIGN == 1 && PG_NIB_RANGE_EXTENT == 1);
        EXPECT(pg_cat(in0, PG_CAT_IN0_BYTES, in1, PG_CAT_IN1_BYTES, in2, PG_CAT_IN2_BYTES, want, PG_CAT_OUT0_BYTES) == KERF_OK);
        CHECK_RANGES(PG_CAT_RANGE_EXTENT, pg_cat_range(in0, PG_CAT_IN0_BYTES, in1, PG_CAT_IN1_BYTES, in2, PG_CAT_IN2_BYTES,
                     got, PG_CAT_OUT0_BYTES, lo, hi), got, PG_CAT_OUT0_BYTES, want);
        /* Both outputs in one buffer, one after the other. */
        EXPECT(pg_split(in0, PG_SPLIT_IN0_BYTES, want, PG_SPLIT_OUT0_BYTES, want + PG_SPLIT_OUT0_BYTES, PG_SPLIT_OUT1_BYTES) == KERF_OK);
        CHECK_RANGES(PG_SPLIT_RANGE_EXTENT, pg_split_range(in0, PG_SPLIT_IN0_BYTES, got, PG_SPLIT_OUT0_BYTES,
                     got + PG_SPLIT_OUT0_BYTES, PG_SPLIT_OUT1_BYTES, lo, hi), got, PG_SPLIT_OUT0_BYTES + PG_SPLIT_OUT1_BYTES, want);
        EXPECT(pg_roll(in0, PG_ROLL_IN0_BYTES, want, PG_ROLL_OUT0_BYTES) == KERF_OK);
        CHECK_RANGES(PG_ROLL_RANGE_EXTENT, pg_roll_range(in0, PG_ROLL_IN0_BYTES, got, PG_ROLL_OUT0_BYTES, lo, hi), got,
                     PG_ROLL_OUT0_BYTES, want);
        EXPECT(pg_konst(in0, PG_KONST_IN0_BYTES, want, PG_KONST_OUT0_BYTES) == KERF_OK);
        CHECK_RANGES(PG_KONST_RANGE_EXTENT, pg_konst_range(in0, PG_KONST_IN0_BYTES, got, PG_KONST_OUT0_BYTES, lo, hi), got,
                     PG_KONST_OUT0_BYTES, want);
        /* Through scratch: a move dense then copied into its box, a chain in two segments. */
        EXPECT(pg_fb(in0, PG_FB_IN0_BYTES, in1, PG_FB_IN1_BYTES, want, PG_FB_OUT0_BYTES) == KERF_OK);
        CHECK_RANGES(PG_FB_RANGE_EXTENT, pg_fb_range(in0, PG_FB_IN0_BYTES, in1, PG_FB_IN1_BYTES, got, PG_FB_OUT0_BYTES, lo, hi),
                     got, PG_FB_OUT0_BYTES, want);
        EXPECT(pg_seg(in0, PG_SEG_IN0_BYTES, in1, PG_SEG_IN1_BYTES, want, PG_SEG_OUT0_BYTES) == KERF_OK);
        CHECK_RANGES(PG_SEG_RANGE_EXTENT, pg_seg_range(in0, PG_SEG_IN0_BYTES, in1, PG_SEG_IN1_BYTES, got, PG_SEG_OUT0_BYTES,
                     lo, hi), got, PG_SEG_OUT0_BYTES, want);
        /* Packed 4-bit boxes placed nibble by nibble: one position for the output. */
        EXPECT(pg_nib(in0, PG_NIB_IN0_BYTES, in1, PG_NIB_IN1_BYTES, want, PG_NIB_OUT0_BYTES) == KERF_OK);
        CHECK_RANGES(PG_NIB_RANGE_EXTENT, pg_nib_range(in0, PG_NIB_IN0_BYTES, in1, PG_NIB_IN1_BYTES, got, PG_NIB_OUT0_BYTES,
                     lo, hi), got, PG_NIB_OUT0_BYTES, want);
        /* A range checks its buffers as the whole call does. */
        EXPECT(pg_cat_range(NULL, PG_CAT_IN0_BYTES, in1, PG_CAT_IN1_BYTES, in2, PG_CAT_IN2_BYTES, got, PG_CAT_OUT0_BYTES, 0, 1)
               == KERF_ERR_NULL);
        EXPECT(pg_cat_range(in0, PG_CAT_IN0_BYTES, in1, PG_CAT_IN1_BYTES, in2, PG_CAT_IN2_BYTES, got, PG_CAT_OUT0_BYTES - 1, 0, 1)
               == KERF_ERR_OUTPUT_BYTES);
        EXPECT(pg_cat_range(got, PG_CAT_IN0_BYTES, in1, PG_CAT_IN1_BYTES, in2, PG_CAT_IN2_BYTES, got + 1, PG_CAT_OUT0_BYTES, 0, 1)
               == KERF_ERR_OVERLAP);
    }
    {
        /* The info table describes every operand. */
        const kerf_kernel_info *k = &lib->kernels[0];
        const kerf_tensor_info *ins = (const kerf_tensor_info *)(const void *)k->input_shape;
        const kerf_tensor_info *outs = (const kerf_tensor_info *)(const void *)k->output_shape;
        EXPECT(lib->kernel_count == PG_KERNEL_COUNT && PG_KERNEL_COUNT == 7);
        EXPECT(lib->abi_major == PG_ABI_MAJOR && lib->abi_minor == PG_ABI_MINOR && PG_ABI_MINOR >= 2);
        EXPECT(strcmp(k->name, "cat") == 0 && k->flags == KERF_KERNEL_PROGRAM);
        EXPECT(k->input_rank == 3 && k->output_rank == 1 && k->range_entry == (void (*)(void))pg_cat_range);
        EXPECT(k->range_extent == PG_CAT_RANGE_EXTENT && k->range_align == 1);
        EXPECT(k->input_bytes == PG_CAT_IN0_BYTES + PG_CAT_IN1_BYTES + PG_CAT_IN2_BYTES);
        EXPECT(k->entry == (void (*)(void))pg_cat);
        EXPECT(strcmp(ins[1].name, "in_1") == 0 && ins[1].rank == 2 && ins[1].shape[1] == 1 && ins[1].bytes == 8);
        EXPECT(strcmp(outs[0].name, "out_0") == 0 && outs[0].shape[1] == 6 && outs[0].bytes == PG_CAT_OUT0_BYTES);
        k = &lib->kernels[1];
        outs = (const kerf_tensor_info *)(const void *)k->output_shape;
        EXPECT(k->input_rank == 1 && k->output_rank == 2 && outs[1].shape[0] == 3 && outs[1].bytes == 24);
        k = &lib->kernels[2];
        ins = (const kerf_tensor_info *)(const void *)k->input_shape;
        EXPECT(strcmp(k->name, "roll") == 0 && strcmp(ins[0].name, "x") == 0 && strcmp(k->dtype, "f32") == 0);
        EXPECT(lib->kernels[3].input_rank == 1 && lib->kernels[3].input_bytes == 4);
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
"#;

fn build_and_run(dir: &Path, compiler: &str, flags: &[&str], source: &str) -> PathBuf {
    let src = dir.join(source);
    std::fs::write(&src, DRIVER).unwrap();
    let exe = dir.join(format!("{source}.exe"));
    let out = Command::new(compiler)
        .args(flags)
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-fPIE", "-pie", "-Wl,-z,text", "-I"])
        .arg(dir)
        .arg(&src)
        .args(["-x", "none"])
        .arg(dir.join("pg.o"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{compiler} {flags:?}: {}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success() && stdout.contains("0 failures"), "{compiler} {flags:?}:\n{stdout}");
    exe
}

#[test]
fn c_drivers_call_a_concat_a_split_and_two_graphs_and_their_error_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let out = compile(tmp.path(), "x86_64-unknown-linux-gnu");
    assert!(!out.needs_runtime, "these kernels link against libc alone");
    assert!(out.header.contains(
        "int32_t pg_cat(const void *in_0, size_t in_0_bytes, const void *in_1, size_t in_1_bytes, \
         const void *in_2, size_t in_2_bytes, void *out_0, size_t out_0_bytes);"
    ));
    assert!(out.header.contains(
        "int32_t pg_split(const void *in_0, size_t in_0_bytes, void *out_0, size_t out_0_bytes, \
         void *out_1, size_t out_1_bytes);"
    ));
    let mut exported = out.exported.clone();
    exported.sort();
    assert_eq!(
        exported,
        [
            "pg_cat",
            "pg_cat_range",
            "pg_fb",
            "pg_fb_range",
            "pg_info",
            "pg_konst",
            "pg_konst_range",
            "pg_nib",
            "pg_nib_range",
            "pg_roll",
            "pg_roll_range",
            "pg_seg",
            "pg_seg_range",
            "pg_split",
            "pg_split_range"
        ],
    );
    assert!(out.header.contains(
        "int32_t pg_split_range(const void *in_0, size_t in_0_bytes, void *out_0, size_t out_0_bytes, \
         void *out_1, size_t out_1_bytes, size_t lo, size_t hi);"
    ));
    assert!(out.allocates && out.header.contains("malloc"));
    lint(&out.object, &exported);
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        eprintln!("skipped: the driver runs x86-64 Linux objects");
        return;
    }
    std::fs::write(tmp.path().join("pg.o"), &out.object).unwrap();
    std::fs::write(tmp.path().join("pg.h"), &out.header).unwrap();
    if have("cc") {
        let exe = build_and_run(tmp.path(), "cc", &["-std=c99", "-x", "c"], "driver.c");
        // Under valgrind: no invalid read or write, no use of uninitialized bytes, no
        // leak (the scratch of every range that allocates it is freed).
        if have("valgrind") {
            let run = Command::new("valgrind")
                .args(["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
                .arg(&exe)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(
                run.status.success() && stdout.contains("0 failures"),
                "under valgrind:\n{stdout}{}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
    }
    if have("c++") {
        build_and_run(tmp.path(), "c++", &["-std=c++11", "-x", "c++"], "driver.cpp");
    }
}

/// The object imports only libc's memcpy, memset, malloc and free (these kernels need no
/// runtime library), exports only the entry points and `<lib>_info`, and every relocation
/// in code is PC-relative on x86-64 (PC32, PLT32, GOTPCREL, GOTPCRELX, REX_GOTPCRELX).
fn lint(bytes: &[u8], exported: &[String]) {
    use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, SymbolKind};
    let file = object::File::parse(bytes).unwrap();
    let mut globals = Vec::new();
    for s in file.symbols() {
        let name = s.name().unwrap().to_string();
        if s.is_undefined() && !name.is_empty() {
            assert!(["memcpy", "memset", "malloc", "free"].contains(&name.as_str()), "undefined {name}");
        } else if s.is_global() && s.kind() != SymbolKind::File {
            globals.push(name);
        }
    }
    globals.sort();
    assert_eq!(globals, exported, "exported symbols");
    for section in file.sections().filter(|s| s.kind() == object::SectionKind::Text) {
        for (_, r) in section.relocations() {
            let RelocationFlags::Elf { r_type } = r.flags() else { panic!("not ELF") };
            assert!([2, 4, 9, 41, 42].contains(&r_type), "relocation type {r_type} in code");
        }
    }
}

#[test]
fn program_objects_are_deterministic_on_every_target() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for triple in kerfx_aot::AOT_TRIPLES {
        let (first, second) = (compile(a.path(), triple), compile(b.path(), triple));
        assert!(first.object == second.object, "{triple}: the object differs between two runs");
        assert_eq!(first.header, second.header, "{triple}");
    }
}

/// Graphs that do not run as one program, and programs of strings, are refused naming
/// why.
#[test]
fn what_an_object_cannot_run_is_refused_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let target = kerfx_aot::Target::aot("x86_64-unknown-linux-gnu").unwrap();
    let cases = [
        (
            // y is both a graph output and read by the Concat: two programs.
            "two.toml",
            "outputs = [\"y\", \"z\"]\n[inputs]\nx = { dtype = \"f32\", shape = [4] }\n\
             [[nodes]]\nop = \"onnx.slice\"\nversion = 13\nreads = { data = \"x\" }\nwrites = [\"y\"]\n\
             [nodes.inputs]\nstarts = [1]\nends = [3]\n\
             [[nodes]]\nop = \"onnx.concat\"\nversion = 13\nreads = { inputs = [\"y\", \"y\"] }\nwrites = [\"z\"]\n\
             [nodes.attributes]\naxis = 0\n",
            "programs",
        ),
        (
            // The slice's starts are a graph input: its program is built when the graph runs.
            "param.toml",
            "outputs = [\"y\"]\n[inputs]\nx = { dtype = \"f32\", shape = [4] }\ns = { dtype = \"i64\", shape = [1] }\n\
             [[nodes]]\nop = \"onnx.slice\"\nversion = 13\nreads = { data = \"x\", starts = \"s\" }\nwrites = [\"y\"]\n\
             [nodes.inputs]\nends = [3]\n",
            "known only when it runs",
        ),
        (
            // Strings run on the reference interpreter, as on the JIT.
            "str.toml",
            "op = \"onnx.concat\"\nversion = 13\n[attributes]\naxis = 0\n[inputs]\ninputs = [\
             { dtype = \"string\", shape = [3] }, { dtype = \"string\", shape = [2] }]\n",
            "cannot move strings",
        ),
    ];
    for (file, text, want) in cases {
        std::fs::write(tmp.path().join(file), text).unwrap();
        std::fs::write(
            tmp.path().join("lib.toml"),
            format!("name = \"r\"\n[[kernels]]\nname = \"g\"\nrequest = \"{file}\"\n"),
        )
        .unwrap();
        let lib = kerfx_aot::Library::load(&tmp.path().join("lib.toml")).unwrap();
        let e = kerfx_aot::compile(&lib, &target).err().unwrap_or_else(|| panic!("{file}: compiled"));
        assert!(e.contains("kernel \"g\"") && e.contains(file) && e.contains(want), "{file}: {e}");
        eprintln!("{file}: {e}");
    }
}
