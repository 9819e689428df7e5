/**
 * \file test_check_cuda.c
 * \brief Host-only unit tests of common/check_cuda.h. They need no GPU and no
 *        driver: the error-name and error-string functions are pure runtime.
 */
#include "check_cuda.h"

#include <sys/wait.h>
#include <unistd.h>

static int failures = 0;

#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                \
        }                                                              \
    } while (0)

/* Runs fn in a child process with stdout and stderr sent to files; returns the
   exit status and leaves what it printed in out/err. */
static int run_child(void (*fn)(void), char *out, size_t out_size, char *err, size_t err_size)
{
    FILE *fo = tmpfile(), *fe = tmpfile();
    int status = -1;
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        dup2(fileno(fo), 1);
        dup2(fileno(fe), 2);
        fn();
        exit(0);
    }
    waitpid(pid, &status, 0);
    memset(out, 0, out_size);
    memset(err, 0, err_size);
    rewind(fo);
    rewind(fe);
    if (fread(out, 1, out_size - 1, fo) == 0 && ferror(fo))
        failures++;
    if (fread(err, 1, err_size - 1, fe) == 0 && ferror(fe))
        failures++;
    fclose(fo);
    fclose(fe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void fail_a_call(void)
{
    check_cuda(cudaErrorMemoryAllocation);
    printf("not reached\n");
}

static void pass_a_call(void)
{
    printf("before\n");
    check_cuda(cudaSuccess);
    printf("after\n");
}

static void compare_mismatch(void)
{
    int got[5] = {0, 1, 2, 9, 9}, want[5] = {0, 1, 2, 3, 4};
    exit((int)check_ints("demo", got, want, 5));
}

static void compare_match(void)
{
    int v[3] = {7, 8, 9};
    exit((int)check_ints("demo", v, v, 3));
}

static void require_gpu(void)
{
    require_gpu_or_skip();
}

static void require_two_gpus(void)
{
    require_gpus_or_skip(2);
}

/* With tests/fake_driver's libcuda.so.1 on LD_LIBRARY_PATH: the real skip path. */
static int old_driver(void)
{
    char out[1024], err[1024];
    const char *want = "[SKIPPED] the NVIDIA driver is too old for this program: "
                       "it supports CUDA 12.2, the program was built with CUDA ";
    EXPECT(run_child(require_gpu, out, sizeof out, err, sizeof err) == CLINIC_EXIT_SKIP);
    EXPECT(strncmp(out, want, strlen(want)) == 0);
    /* A multi-GPU program without a usable GPU gives the same reason, not the
       GPU count: CLINIC_REQUIRE=gpu must still catch a driver too old. */
    EXPECT(run_child(require_two_gpus, out, sizeof out, err, sizeof err) == CLINIC_EXIT_SKIP);
    EXPECT(strncmp(out, want, strlen(want)) == 0);
    printf("%s%s: %d failure(s)\n", out, failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    char buf[512], out[1024], err[1024];

    if (argc == 2 && strcmp(argv[1], "--old-driver") == 0)
        return old_driver();
    if (argc == 2 && strcmp(argv[1], "--require-2-gpus") == 0) { /* multigpu.probe */
        require_gpus_or_skip(2);
        printf("two usable CUDA devices were found\n");
        return CLINIC_EXIT_OK;
    }

    EXPECT(strcmp(clinic_basename("/a/b/fixed.cu"), "fixed.cu") == 0);
    EXPECT(strcmp(clinic_basename("fixed.cu"), "fixed.cu") == 0);

    clinic_format_error(buf, sizeof buf, cudaErrorInvalidValue, "cudaMemcpy(h, d, n, k)",
                        "/src/chapters/06/broken.cu", 42);
    EXPECT(strcmp(buf, "broken.cu:42: cudaMemcpy(h, d, n, k) failed: "
                       "cudaErrorInvalidValue (invalid argument)") == 0);

    /* Each way of having no usable GPU gets its own reason. */
    unsetenv("CUDA_VISIBLE_DEVICES");
    EXPECT(clinic_skip_reason(cudaErrorInsufficientDriver, 0, 0, 13000, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "no NVIDIA driver: libcuda.so.1 is not installed or cannot be loaded") == 0);
    EXPECT(clinic_skip_reason(cudaErrorInsufficientDriver, 0, 12020, 13000, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "the NVIDIA driver is too old for this program: it supports CUDA 12.2, "
                       "the program was built with CUDA 13.0") == 0);
    EXPECT(clinic_skip_reason(cudaErrorStubLibrary, 0, 13000, 13000, buf, sizeof buf) == 1);
    EXPECT(strstr(buf, "stub") != NULL);
    EXPECT(clinic_skip_reason(cudaErrorNoDevice, 0, 13000, 13000, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "the NVIDIA driver sees no CUDA device (CUDA_VISIBLE_DEVICES is unset)") == 0);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    EXPECT(clinic_skip_reason(cudaSuccess, 0, 13000, 13000, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "the NVIDIA driver sees no CUDA device (CUDA_VISIBLE_DEVICES is \"\")") == 0);
    unsetenv("CUDA_VISIBLE_DEVICES");
    EXPECT(clinic_skip_reason(cudaErrorUnknown, 0, 13000, 13000, buf, sizeof buf) == 1);
    EXPECT(strstr(buf, "cudaGetDeviceCount failed: cudaErrorUnknown") == buf);
    EXPECT(clinic_skip_reason(cudaSuccess, 1, 13000, 13000, buf, sizeof buf) == 0);

    /* Too few GPUs for a multi-GPU program: the count, and what hid the rest. */
    EXPECT(clinic_gpus_reason(2, 1, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "this test needs 2 GPUs, the host has 1") == 0);
    EXPECT(clinic_gpus_reason(2, 2, buf, sizeof buf) == 0);
    EXPECT(clinic_gpus_reason(2, 8, buf, sizeof buf) == 0);
    EXPECT(clinic_gpus_reason(4, 3, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "this test needs 4 GPUs, the host has 3") == 0);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    EXPECT(clinic_gpus_reason(2, 1, buf, sizeof buf) == 1);
    EXPECT(strcmp(buf, "this test needs 2 GPUs, the host has 1 visible "
                       "(CUDA_VISIBLE_DEVICES is \"0\")") == 0);
    unsetenv("CUDA_VISIBLE_DEVICES");

    EXPECT(run_child(fail_a_call, out, sizeof out, err, sizeof err) == CLINIC_EXIT_CUDA_ERROR);
    EXPECT(strstr(err, "test_check_cuda.c:") == err); /* file:line first, without directories */
    EXPECT(strstr(err, "failed: cudaErrorMemoryAllocation (out of memory)\n") != NULL);
    EXPECT(strcmp(out, "") == 0);

    EXPECT(run_child(pass_a_call, out, sizeof out, err, sizeof err) == 0);
    EXPECT(strcmp(out, "before\nafter\n") == 0);
    EXPECT(strcmp(err, "") == 0);

    EXPECT(run_child(compare_mismatch, out, sizeof out, err, sizeof err) == 2);
    EXPECT(strcmp(out, "demo: 2 of 5 elements wrong, first at [3]: got 9, expected 3\n") == 0);
    EXPECT(run_child(compare_match, out, sizeof out, err, sizeof err) == 0);
    EXPECT(strcmp(out, "demo: 0 of 3 elements wrong\n") == 0);

    unsetenv("CLINIC_DEBUG_SYNC");
    EXPECT(clinic_debug_sync() == 0);
    setenv("CLINIC_DEBUG_SYNC", "0", 1);
    EXPECT(clinic_debug_sync() == 0);
    setenv("CLINIC_DEBUG_SYNC", "1", 1);
    EXPECT(clinic_debug_sync() == 1);

    printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
