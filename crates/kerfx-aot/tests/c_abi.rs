//! The generated header and object from C: a driver including the header calls every
//! kernel and every error path, built as C99 and as C++11 with `-Wall -Wextra -Werror
//! -pedantic` and linked as a PIE with `-Wl,-z,text`; the object lint; byte-identical
//! output for the same library file.

use kerfx_testkit::native::{have, runtime_library};
use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, SymbolKind};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A library of every kind the object writes: a slice with input, a pad, a fill
/// without input, an odd count of 4-bit elements (range alignment 2, a lone nibble), a
/// fused chain, and (`runtime`) a transpose that calls the runtime's tiled copy, a random
/// fill (the runtime's Philox block fill, range alignment 64), a chain that starts with
/// a random fill (the runtime's head runs), and three dynamic kernels (a slice, a
/// reflecting pad, an ONNX Slice of i32 indices), whose plans the runtime builds.
fn library(dir: &Path, runtime: bool) -> PathBuf {
    let files = [
        (
            "crop.toml",
            "op = \"tensorrt.slice\"\n[attributes]\nstart = [1, 1]\nsize = [3, 3]\nstride = [1, 1]\n\
             [inputs]\ninput = { dtype = \"f32\", shape = [5, 6] }\n",
        ),
        (
            "pad.toml",
            "op = \"onnx.pad\"\nversion = 19\n[attributes]\nmode = \"reflect\"\n\
             [inputs]\ndata = { dtype = \"i16\", shape = [3, 4] }\npads = [1, 2, 1, 2]\n",
        ),
        (
            "ramp.toml",
            "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [4, 5]\noperation = \"linspace\"\n\
             alpha = 1.0\nbeta = [10.0, 1.0]\nto_type = \"f32\"\n",
        ),
        (
            "nib.toml",
            "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 0]\nsize = [3, 3]\nstride = [1, 1]\n\
             [inputs]\ninput = { dtype = \"i4\", shape = [3, 4] }\n",
        ),
        (
            "chain.toml",
            "[[steps]]\nop = \"onnx.pad\"\nversion = 19\n[steps.attributes]\nmode = \"reflect\"\n\
             [steps.inputs]\ndata = { dtype = \"u8\", shape = [4, 4] }\npads = [2, 2, 2, 2]\n\
             [[steps]]\nop = \"onnx.slice\"\n[steps.inputs]\nstarts = [1, 1]\nends = [-1, -1]\n",
        ),
        (
            "tr.toml",
            "op = \"onnx.transpose\"\n[attributes]\nperm = [1, 0]\n\
             [inputs]\ndata = { dtype = \"f32\", shape = [64, 48] }\n",
        ),
        (
            "rnd.toml",
            "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [3, 70]\noperation = \"random_normal\"\n\
             alpha = 1.0\nbeta = 2.0\nseed = 7\nto_type = \"f32\"\n",
        ),
        (
            "fh.toml",
            "[[steps]]\nop = \"tensorrt.fill\"\n[steps.attributes]\ndimensions = [6, 10]\n\
             operation = \"random_uniform\"\nalpha = -1.0\nbeta = 1.0\nseed = 3\nto_type = \"f16\"\n\
             [[steps]]\nop = \"tensorrt.slice\"\n[steps.attributes]\nstart = [5, 1]\nsize = [3, 4]\nstride = [-2, 2]\n",
        ),
        (
            "dpad.toml",
            "op = \"onnx.pad\"\nversion = 19\n[attributes]\nmode = \"reflect\"\n\
             [inputs]\ndata = { dtype = \"i16\", shape = [3, 4] }\npads = [1, 2, 1, 2]\n",
        ),
        (
            "dslice.toml",
            "op = \"onnx.slice\"\n[inputs]\ndata = { dtype = \"u8\", shape = [5, 6] }\n\
             starts = { dtype = \"i32\", shape = [2], values = [1, 1] }\n\
             ends = { dtype = \"i32\", shape = [2], values = [3, 3] }\n",
        ),
        (
            "lib.toml",
            "name = \"demo\"\n\
             [[kernels]]\nname = \"crop\"\nrequest = \"crop.toml\"\n\
             [[kernels]]\nname = \"pad\"\nrequest = \"pad.toml\"\n\
             [[kernels]]\nname = \"ramp\"\nrequest = \"ramp.toml\"\n\
             [[kernels]]\nname = \"nib\"\nrequest = \"nib.toml\"\n\
             [[kernels]]\nname = \"chain\"\nrequest = \"chain.toml\"\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    if runtime {
        let mut text = std::fs::read_to_string(dir.join("lib.toml")).unwrap();
        text += "[[kernels]]\nname = \"tr\"\nrequest = \"tr.toml\"\n\
                 [[kernels]]\nname = \"rnd\"\nrequest = \"rnd.toml\"\n\
                 [[kernels]]\nname = \"fh\"\nrequest = \"fh.toml\"\n\
                 [[kernels]]\nname = \"dcrop\"\nrequest = \"crop.toml\"\ndynamic = true\n\
                 [[kernels]]\nname = \"dpad\"\nrequest = \"dpad.toml\"\ndynamic = true\n\
                 [[kernels]]\nname = \"dslice\"\nrequest = \"dslice.toml\"\ndynamic = true\n";
        std::fs::write(dir.join("lib.toml"), text).unwrap();
    }
    dir.join("lib.toml")
}

fn compile(dir: &Path, triple: &str, runtime: bool) -> kerfx_aot::Output {
    let lib = kerfx_aot::Library::load(&library(dir, runtime)).unwrap();
    kerfx_aot::compile(&lib, &kerfx_aot::Target::aot(triple).unwrap()).unwrap()
}

const DRIVER: &str = r#"
#include "demo.h"
#include "expect.h"
#include <stdio.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond) do { if (!(cond)) { printf("FAILED line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

int main(void) {
    unsigned char in[DEMO_CROP_INPUT_BYTES], out[DEMO_CROP_OUTPUT_BYTES], ranged[DEMO_CROP_OUTPUT_BYTES];
    unsigned char big[DEMO_CROP_INPUT_BYTES + DEMO_CROP_OUTPUT_BYTES];
    static const uint64_t shape[] = DEMO_CROP_OUTPUT_SHAPE;
    float want[9];
    size_t i, lo;
    const kerf_library_info *lib = demo_info();
    for (i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 7 + 1);
    for (i = 0; i < 9; i++) memcpy(&want[i], in + 4 * (6 * (1 + i / 3) + 1 + i % 3), 4);

    EXPECT(shape[0] == 3 && shape[1] == 3 && DEMO_CROP_OUTPUT_RANK == 2);
    EXPECT(demo_crop(in, sizeof in, out, sizeof out) == KERF_OK);
    EXPECT(memcmp(out, want, sizeof out) == 0);
    /* Every error is reported before anything is written. */
    memset(out, 0xAB, sizeof out);
    EXPECT(demo_crop(NULL, sizeof in, out, sizeof out) == KERF_ERR_NULL);
    EXPECT(demo_crop(in, sizeof in, NULL, sizeof out) == KERF_ERR_NULL);
    EXPECT(demo_crop(in, sizeof in - 1, out, sizeof out) == KERF_ERR_INPUT_BYTES);
    EXPECT(demo_crop(in, sizeof in + 1, out, sizeof out) == KERF_ERR_INPUT_BYTES);
    EXPECT(demo_crop(in, sizeof in, out, sizeof out - 1) == KERF_ERR_OUTPUT_BYTES);
    EXPECT(demo_crop(in, sizeof in, out, sizeof out + 1) == KERF_ERR_OUTPUT_BYTES);
    EXPECT(demo_crop(big, DEMO_CROP_INPUT_BYTES, big + DEMO_CROP_INPUT_BYTES - 1, DEMO_CROP_OUTPUT_BYTES) == KERF_ERR_OVERLAP);
    EXPECT(demo_crop(big + DEMO_CROP_OUTPUT_BYTES - 1, DEMO_CROP_INPUT_BYTES, big, DEMO_CROP_OUTPUT_BYTES) == KERF_ERR_OVERLAP);
    EXPECT(demo_crop(big, DEMO_CROP_INPUT_BYTES, big + DEMO_CROP_INPUT_BYTES, DEMO_CROP_OUTPUT_BYTES) == KERF_OK);
    EXPECT(demo_crop_range(in, sizeof in, out, sizeof out, 2, 1) == KERF_ERR_RANGE);
    EXPECT(demo_crop_range(in, sizeof in, out, sizeof out, 0, DEMO_CROP_RANGE_EXTENT + 1) == KERF_ERR_RANGE);
    EXPECT(demo_crop_range(NULL, sizeof in, out, sizeof out, 0, 1) == KERF_ERR_NULL);
    {
        size_t k;
        for (k = 0; k < sizeof out; k++) EXPECT(out[k] == 0xAB);
    }
    /* Ranges that cover the extent once write the whole output. */
    for (lo = 0; lo < DEMO_CROP_RANGE_EXTENT; lo++)
        EXPECT(demo_crop_range(in, sizeof in, ranged, sizeof ranged, lo, lo + 1) == KERF_OK);
    EXPECT(demo_crop_range(in, sizeof in, ranged, sizeof ranged, 1, 1) == KERF_OK);
    EXPECT(memcmp(ranged, want, sizeof ranged) == 0);

    {
        int16_t pin[12], pout[DEMO_PAD_OUTPUT_BYTES / 2];
        for (i = 0; i < 12; i++) pin[i] = (int16_t)(i * 3 - 5);
        EXPECT(demo_pad(pin, sizeof pin, pout, sizeof pout) == KERF_OK);
        /* Reflect: the first row is the input's second, columns reflected. */
        EXPECT(pout[0] == pin[4 + 2] && pout[2] == pin[4] && pout[7] == pin[4 + 1]);
    }
    {
        float r[20], r2[20];
        EXPECT(demo_ramp(r, sizeof r) == KERF_OK);
        EXPECT(r[0] == 1.0f && r[1] == 2.0f && r[5] == 11.0f && r[19] == 35.0f);
        EXPECT(demo_ramp(NULL, sizeof r) == KERF_ERR_NULL);
        EXPECT(demo_ramp(r, sizeof r - 4) == KERF_ERR_OUTPUT_BYTES);
        EXPECT(demo_ramp_range(r2, sizeof r2, 0, 2) == KERF_OK && demo_ramp_range(r2, sizeof r2, 2, 4) == KERF_OK);
        EXPECT(memcmp(r, r2, sizeof r) == 0);
    }
    {
        /* 9 packed 4-bit elements: the last byte holds one, ranges split on even rows. */
        unsigned char nin[DEMO_NIB_INPUT_BYTES], nout[DEMO_NIB_OUTPUT_BYTES], n2[DEMO_NIB_OUTPUT_BYTES];
        for (i = 0; i < sizeof nin; i++) nin[i] = (unsigned char)(0x5A ^ (i * 37));
        EXPECT(DEMO_NIB_OUTPUT_BYTES == 5 && DEMO_NIB_RANGE_ALIGN == 2);
        memset(nout, 0xFF, sizeof nout);
        EXPECT(demo_nib(nin, sizeof nin, nout, sizeof nout) == KERF_OK);
        EXPECT((nout[4] & 0xF0) == 0);
        EXPECT(demo_nib_range(nin, sizeof nin, n2, sizeof n2, 1, 3) == KERF_ERR_RANGE);
        EXPECT(demo_nib_range(nin, sizeof nin, n2, sizeof n2, 0, 1) == KERF_ERR_RANGE);
        memset(n2, 0xFF, sizeof n2);
        EXPECT(demo_nib_range(nin, sizeof nin, n2, sizeof n2, 2, 3) == KERF_OK);
        EXPECT(demo_nib_range(nin, sizeof nin, n2, sizeof n2, 0, 2) == KERF_OK);
        EXPECT(memcmp(nout, n2, sizeof nout) == 0);
    }
    {
        unsigned char cin[16], cout[DEMO_CHAIN_OUTPUT_BYTES];
        for (i = 0; i < 16; i++) cin[i] = (unsigned char)i;
        EXPECT(demo_chain(cin, sizeof cin, cout, sizeof cout) == KERF_OK);
        /* Pad reflect 2 then crop 1: row 0 is input row 1 reflected by one column. */
        EXPECT(DEMO_CHAIN_OUTPUT_BYTES == 36 && cout[0] == 5 && cout[1] == 4 && cout[2] == 5 && cout[5] == 6);
    }
    EXPECT(lib->abi_major == DEMO_ABI_MAJOR && lib->abi_minor == DEMO_ABI_MINOR);
    EXPECT(lib->kernel_count == DEMO_KERNEL_COUNT && strcmp(lib->name, "demo") == 0);
    EXPECT(strcmp(lib->target, DEMO_TARGET) == 0 && strcmp(lib->cpu, DEMO_CPU) == 0);
    EXPECT(strcmp(lib->kernels[0].name, "crop") == 0 && strcmp(lib->kernels[0].dtype, "f32") == 0);
    EXPECT(lib->kernels[0].output_bytes == DEMO_CROP_OUTPUT_BYTES && lib->kernels[0].output_shape[1] == 3);
    EXPECT(lib->kernels[0].flags == KERF_KERNEL_READS_INPUT && lib->kernels[2].flags == 0);
    EXPECT(lib->kernels[2].input_shape == NULL && lib->kernels[3].range_align == 2);
    EXPECT(lib->kernels[0].entry == (void (*)(void))demo_crop);
    EXPECT(lib->kernels[4].range_entry == (void (*)(void))demo_chain_range);
    {
        /* The transpose calls the runtime library's tiled copy. */
        static float tin[64 * 48], tout[48 * 64], t2[48 * 64];
        EXPECT(DEMO_TR_NEEDS_RUNTIME == 1 && DEMO_CROP_NEEDS_RUNTIME == 0);
        for (i = 0; i < 64 * 48; i++) tin[i] = (float)i;
        EXPECT(demo_tr(tin, sizeof tin, tout, sizeof tout) == KERF_OK);
        for (i = 0; i < 64 * 48; i++) EXPECT(tout[(i % 48) * 64 + i / 48] == tin[i]);
        for (lo = 0; lo < DEMO_TR_RANGE_EXTENT; lo += 5) {
            size_t hi = lo + 5 < DEMO_TR_RANGE_EXTENT ? lo + 5 : DEMO_TR_RANGE_EXTENT;
            EXPECT(demo_tr_range(tin, sizeof tin, t2, sizeof t2, lo, hi) == KERF_OK);
        }
        EXPECT(memcmp(tout, t2, sizeof tout) == 0);
    }
    {
        /* A dynamic slice: compiled for rank 2 f32 (crop.toml), any shape of that rank and
         * any start, size and stride, each plan built and checked by the runtime. */
        static const uint64_t dshape[] = {5, 6}, square[] = {4, 4};
        static const int64_t start[] = {1, 1}, size[] = {3, 3}, stride[] = {1, 1}, whole[] = {4, 4};
        static const int64_t origin[] = {0, 0}, negative[] = {-1, 3}, outside[] = {9, 9};
        static const int16_t pin[6] = {1, 2, 3, 4, 5, 6};
        static const int64_t pads[] = {0, 1, 0, 1};
        const kerf_kernel_info *dk = &lib->kernels[8];
        kerf_rt1_plan *plan = NULL, *again = NULL, *pad_plan = NULL, *none = (kerf_rt1_plan *)&failures;
        float din[30], dout[9], sq[16], sq_out[16], dbig[30 + 9];
        int16_t pout[10];
        uint64_t os[4] = {0, 0, 0, 0};
        char msg[256];
        for (i = 0; i < 30; i++) din[i] = (float)i;
        for (i = 0; i < 16; i++) sq[i] = (float)(100 + i);
        EXPECT(DEMO_DCROP_DYNAMIC == 1 && DEMO_DCROP_INPUT_RANK == 2 && DEMO_DCROP_PARAM_COUNT == 3);
        EXPECT(strcmp(DEMO_DCROP_PARAM0_NAME, "start") == 0 && DEMO_DCROP_NEEDS_RUNTIME == 1);
        EXPECT(demo_dcrop_plan(dshape, 2, start, 2, size, 2, stride, 2, &plan) == KERF_OK && plan != NULL);
        EXPECT(kerf_rt1_plan_error(msg, sizeof msg) == 0 && msg[0] == 0);
        EXPECT(kerf_rt1_plan_input_bytes(plan) == sizeof din && kerf_rt1_plan_output_bytes(plan) == sizeof dout);
        EXPECT(kerf_rt1_plan_output_shape(plan, os, 4) == 2 && os[0] == 3 && os[1] == 3);
        EXPECT(demo_dcrop(plan, din, sizeof din, dout, sizeof dout) == KERF_OK);
        for (i = 0; i < 9; i++) EXPECT(dout[i] == (float)(6 * (1 + i / 3) + 1 + i % 3));
        /* Another plan of the same kernel: another shape and other numbers. */
        EXPECT(demo_dcrop_plan(square, 2, origin, 2, whole, 2, stride, 2, &again) == KERF_OK);
        EXPECT(demo_dcrop(again, sq, sizeof sq, sq_out, sizeof sq_out) == KERF_OK);
        EXPECT(memcmp(sq, sq_out, sizeof sq) == 0);
        /* Every error of a run is reported before anything is written. */
        memset(dout, 0xAB, sizeof dout);
        EXPECT(demo_dcrop(NULL, din, sizeof din, dout, sizeof dout) == KERF_ERR_PLAN);
        EXPECT(demo_dcrop(plan, NULL, sizeof din, dout, sizeof dout) == KERF_ERR_NULL);
        EXPECT(demo_dcrop(plan, din, sizeof din, NULL, sizeof dout) == KERF_ERR_NULL);
        EXPECT(demo_dcrop(plan, din, sizeof din - 1, dout, sizeof dout) == KERF_ERR_INPUT_BYTES);
        EXPECT(demo_dcrop(plan, din, sizeof din + 1, dout, sizeof dout) == KERF_ERR_INPUT_BYTES);
        EXPECT(demo_dcrop(plan, din, sizeof din, dout, sizeof dout - 1) == KERF_ERR_OUTPUT_BYTES);
        EXPECT(demo_dcrop(plan, din, sizeof din, dout, sizeof dout + 1) == KERF_ERR_OUTPUT_BYTES);
        EXPECT(demo_dcrop(plan, dbig, sizeof din, (char *)dbig + sizeof din - 1, sizeof dout) == KERF_ERR_OVERLAP);
        EXPECT(demo_dcrop(again, din, sizeof din, dout, sizeof dout) == KERF_ERR_INPUT_BYTES);
        {
            size_t k;
            for (k = 0; k < sizeof dout; k++) EXPECT(((unsigned char *)dout)[k] == 0xAB);
        }
        /* A plan of another kernel: the wrong plan kind, both ways. */
        {
            static const uint64_t pshape[] = {2, 3};
            EXPECT(demo_dpad_plan(pshape, 2, pads, 3, &pad_plan) == KERF_ERR_INVALID && pad_plan == NULL);
            EXPECT(kerf_rt1_plan_error(msg, sizeof msg) > 0 && strlen(msg) > 0);
            EXPECT(demo_dpad_plan(pshape, 2, pads, 4, &pad_plan) == KERF_OK);
        }
        EXPECT(demo_dcrop(pad_plan, din, sizeof din, dout, sizeof dout) == KERF_ERR_PLAN_KIND);
        EXPECT(demo_dpad(plan, pin, sizeof pin, pout, sizeof pout) == KERF_ERR_PLAN_KIND);
        /* Reflect one column on each side of a [2, 3] input: [2, 5], row 0 = 2 1 2 3 2. */
        EXPECT(kerf_rt1_plan_output_bytes(pad_plan) == sizeof pout);
        EXPECT(demo_dpad(pad_plan, pin, sizeof pin, pout, sizeof pout) == KERF_OK);
        EXPECT(pout[0] == 2 && pout[1] == 1 && pout[3] == 3 && pout[4] == 2 && pout[5] == 5 && pout[9] == 5);
        /* Bad numbers are named statuses, and leave *plan NULL. */
        EXPECT(demo_dcrop_plan(dshape, 1, start, 2, size, 2, stride, 2, &none) == KERF_ERR_RANK && none == NULL);
        EXPECT(demo_dcrop_plan(dshape, 2, NULL, 2, size, 2, stride, 2, &none) == KERF_ERR_NULL && none == NULL);
        EXPECT(demo_dcrop_plan(NULL, 2, start, 2, size, 2, stride, 2, &none) == KERF_ERR_NULL);
        EXPECT(demo_dcrop_plan(dshape, 2, start, 2, negative, 2, stride, 2, &none) == KERF_ERR_INVALID);
        EXPECT(kerf_rt1_plan_error(msg, sizeof msg) > 0 && strstr(msg, "size") != NULL);
        EXPECT(demo_dcrop_plan(dshape, 2, outside, 2, size, 2, stride, 2, &none) == KERF_ERR_INVALID);
        EXPECT(demo_dcrop_plan(dshape, 2, start, 1, size, 2, stride, 2, &none) == KERF_ERR_INVALID);
        EXPECT(demo_dcrop_plan(dshape, 2, start, 2, size, 2, stride, 2, NULL) == KERF_ERR_NULL);
        {
            /* ONNX Slice's starts and ends are i32 tensors here: a value past i32 is refused. */
            static const int64_t from[] = {1, 0}, to[] = {4, 3}, huge[] = {4, 5000000000LL};
            unsigned char sin[30], sout[9];
            kerf_rt1_plan *s = NULL;
            for (i = 0; i < 30; i++) sin[i] = (unsigned char)i;
            EXPECT(demo_dslice_plan(dshape, 2, from, 2, huge, 2, &none) == KERF_ERR_PARAM && none == NULL);
            EXPECT(kerf_rt1_plan_error(msg, sizeof msg) > 0 && strstr(msg, "i32") != NULL);
            EXPECT(demo_dslice_plan(dshape, 2, from, 2, to, 2, &s) == KERF_OK);
            EXPECT(demo_dslice(s, sin, sizeof sin, sout, sizeof sout) == KERF_OK);
            EXPECT(sout[0] == 6 && sout[2] == 8 && sout[8] == 20);
            kerf_rt1_plan_free(s);
        }
        EXPECT(dk->flags == (KERF_KERNEL_DYNAMIC | KERF_KERNEL_READS_INPUT) && strcmp(dk->name, "dcrop") == 0);
        EXPECT(dk->entry == (void (*)(void))demo_dcrop && dk->range_entry == (void (*)(void))demo_dcrop_plan);
        EXPECT(dk->input_rank == 2 && dk->output_rank == 3 && dk->input_shape == NULL && dk->output_bytes == 0);
        kerf_rt1_plan_free(plan);
        kerf_rt1_plan_free(again);
        kerf_rt1_plan_free(pad_plan);
        kerf_rt1_plan_free(NULL);
    }
    {
        /* A random fill: the reference's bits (expect.h), whole and in ranges of 64
         * elements (the block fill's alignment); other bounds are refused. */
        static unsigned char r[DEMO_RND_OUTPUT_BYTES], r2[DEMO_RND_OUTPUT_BYTES];
        EXPECT(DEMO_RND_NEEDS_RUNTIME == 1 && DEMO_RND_RANGE_ALIGN == 64 && DEMO_RND_RANGE_EXTENT == 210);
        EXPECT(sizeof want_rnd == DEMO_RND_OUTPUT_BYTES);
        EXPECT(demo_rnd(r, sizeof r) == KERF_OK);
        EXPECT(memcmp(r, want_rnd, sizeof r) == 0);
        EXPECT(demo_rnd_range(r2, sizeof r2, 1, 64) == KERF_ERR_RANGE);
        EXPECT(demo_rnd_range(r2, sizeof r2, 0, 65) == KERF_ERR_RANGE);
        EXPECT(demo_rnd_range(r2, sizeof r2, 64, 64) == KERF_OK);
        for (lo = DEMO_RND_RANGE_EXTENT / 64 * 64;; lo -= 64) {
            size_t hi = lo + 64 < DEMO_RND_RANGE_EXTENT ? lo + 64 : DEMO_RND_RANGE_EXTENT;
            EXPECT(demo_rnd_range(r2, sizeof r2, lo, hi) == KERF_OK);
            if (lo == 0) break;
        }
        EXPECT(memcmp(r2, want_rnd, sizeof r2) == 0);
    }
    {
        /* A chain from a random fill: the runtime's head runs, the reference's bits. */
        unsigned char h[DEMO_FH_OUTPUT_BYTES], h2[DEMO_FH_OUTPUT_BYTES];
        EXPECT(DEMO_FH_NEEDS_RUNTIME == 1 && sizeof want_fh == DEMO_FH_OUTPUT_BYTES);
        EXPECT(demo_fh(h, sizeof h) == KERF_OK);
        EXPECT(memcmp(h, want_fh, sizeof h) == 0);
        for (lo = 0; lo < DEMO_FH_RANGE_EXTENT; lo++)
            EXPECT(demo_fh_range(h2, sizeof h2, lo, lo + 1) == KERF_OK);
        EXPECT(memcmp(h2, want_fh, sizeof h2) == 0);
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
"#;

/// Build the driver with `compiler` and `flags` as a PIE with no text relocations, run it.
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
        .arg(dir.join("demo.o"))
        .arg(runtime_library())
        .args(["-lpthread", "-ldl", "-lm"])
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

/// `expect.h`: the reference's bytes of the random fill and of the chain from a fill, as
/// C arrays (`want_rnd`, `want_fh`).
fn expectations(dir: &Path) -> String {
    use kerfx::request_file::{AnyFile, load_any};
    let array = |name: &str, bytes: &[u8]| {
        let items: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        format!("static const unsigned char {name}[] = {{{}}};\n", items.join(","))
    };
    let Ok(AnyFile::Request(rnd)) = load_any(&dir.join("rnd.toml")) else { panic!("rnd.toml is a request") };
    let rnd = kerfx::run_reference_outputs(&rnd.request).unwrap();
    let Ok(AnyFile::Chain(fh)) = load_any(&dir.join("fh.toml")) else { panic!("fh.toml is a chain") };
    let fh = kerfx::chain::run_chain_reference(&fh.chain(), false).unwrap();
    array("want_rnd", rnd[0].bytes().unwrap()) + &array("want_fh", fh.bytes().unwrap())
}

#[test]
fn a_c99_and_a_cpp11_driver_call_every_kernel_and_error_path() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        eprintln!("skipped: the driver runs x86-64 Linux objects");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = compile(tmp.path(), "x86_64-unknown-linux-gnu", true);
    assert!(out.needs_runtime && out.header.contains("libkerfx_rt.a"));
    std::fs::write(tmp.path().join("demo.o"), &out.object).unwrap();
    std::fs::write(tmp.path().join("demo.h"), &out.header).unwrap();
    std::fs::write(tmp.path().join("kerf_rt.h"), kerfx_aot::RUNTIME_HEADER).unwrap();
    std::fs::write(tmp.path().join("expect.h"), expectations(tmp.path())).unwrap();
    if have("cc") {
        let exe = build_and_run(tmp.path(), "cc", &["-std=c99", "-x", "c"], "driver.c");
        // Under valgrind, the runtime's helpers forced to their baseline (SSE2) paths: no
        // invalid read or write, no use of uninitialized bytes, no leak.
        if have("valgrind") {
            let run = Command::new("valgrind")
                .args(["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
                .arg(&exe)
                .env(kerfx_rt::BASELINE_ENV, "1")
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

/// The lint of one object: every relocation in code is PC-relative (so linking never
/// needs a text relocation), the only undefined symbols are memcpy, memset and (when
/// `runtime`) the runtime's `kerf_rt1_*`, never `__cranelift_*`, and the only global
/// symbols are the entry points and `<lib>_info`. Returns its report.
fn lint(bytes: &[u8], exported: &[String], runtime: bool) -> String {
    let file = object::File::parse(bytes).unwrap();
    let mut report = String::new();
    let mut globals = Vec::new();
    for s in file.symbols() {
        let name = s.name().unwrap().to_string();
        assert!(!name.starts_with("__cranelift"), "{name}");
        if s.is_undefined() && !name.is_empty() {
            let rt = runtime && name.starts_with("kerf_rt1_");
            assert!(name == "memcpy" || name == "memset" || rt, "undefined {name}");
            report += &format!("undefined {name}\n");
        } else if s.is_global() && s.kind() != SymbolKind::File {
            globals.push(name);
        }
    }
    globals.sort();
    let mut want = exported.to_vec();
    want.sort();
    assert_eq!(globals, want, "exported symbols");
    report += &format!("exported {}\n", globals.join(" "));
    for section in file.sections() {
        let relocs: Vec<_> = section.relocations().collect();
        if relocs.is_empty() {
            continue;
        }
        let name = section.name().unwrap().to_string();
        let code = section.kind() == object::SectionKind::Text;
        let mut kinds = std::collections::BTreeSet::new();
        for (_, r) in relocs.iter() {
            let RelocationFlags::Elf { r_type } = r.flags() else { panic!("not ELF") };
            kinds.insert(r_type);
            if code {
                // x86-64: PC32, PLT32, GOTPCREL(X), REX_GOTPCRELX; aarch64: CALL26,
                // ADR_PREL_PG_HI21, ADD_ABS_LO12_NC, ADR_GOT_PAGE, LD64_GOT_LO12_NC.
                let relative = [2, 4, 9, 41, 42, 283, 275, 277, 311, 312].contains(&r_type);
                assert!(relative, "{name}: relocation type {r_type} is not PC-relative");
            }
        }
        report += &format!("{name}: {} relocations, ELF types {kinds:?}\n", relocs.len());
    }
    report
}

#[test]
fn the_object_passes_the_lint_and_is_deterministic() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (triple, runtime) in kerfx_aot::AOT_TRIPLES.iter().flat_map(|t| [(t, false), (t, true)]) {
        let (first, second) = (compile(a.path(), triple, runtime), compile(b.path(), triple, runtime));
        assert!(first.object == second.object, "{triple}: the object differs between two runs");
        assert_eq!(first.header, second.header, "{triple}");
        assert_eq!(first.needs_runtime, runtime);
        let report = lint(&first.object, &first.exported, runtime);
        println!("{triple}, runtime {runtime}:\n{report}");
        let file = object::File::parse(&*first.object).unwrap();
        let arch =
            if triple.starts_with("aarch64") { object::Architecture::Aarch64 } else { object::Architecture::X86_64 };
        assert_eq!(file.architecture(), arch);
    }
}

/// A random fill needs the runtime library (its header says so and its object imports
/// the block fill alone); a target kerf does not write is refused naming the ones it does.
#[test]
fn a_random_fill_links_the_runtime_and_other_targets_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("r.toml"),
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [64]\noperation = \"random_uniform\"\n\
         alpha = 0.0\nbeta = 1.0\nto_type = \"f32\"\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("lib.toml"), "name = \"rnd\"\n[[kernels]]\nname = \"u\"\nrequest = \"r.toml\"\n")
        .unwrap();
    let lib = kerfx_aot::Library::load(&tmp.path().join("lib.toml")).unwrap();
    let target = kerfx_aot::Target::aot("x86_64-unknown-linux-gnu").unwrap();
    let out = kerfx_aot::compile(&lib, &target).unwrap();
    assert!(out.needs_runtime && out.header.contains("#define RND_U_NEEDS_RUNTIME 1"), "{}", out.header);
    let report = lint(&out.object, &out.exported, true);
    assert!(report.contains("undefined kerf_rt1_random_fill"), "{report}");
    let e = kerfx_aot::Target::aot("riscv64gc-unknown-linux-gnu").unwrap_err().to_string();
    assert!(e.contains("x86_64-unknown-linux-gnu"), "{e}");
}
