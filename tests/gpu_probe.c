/**
 * \file gpu_probe.c
 * \brief Asks for a usable GPU and nothing else: prints `[SKIPPED] <why>` and
 *        exits 77 without one, the same way every chapter's program does.
 *        The configure step runs it to name the gpu.probe test after the reason.
 */
#include "check_cuda.h"

int main(void)
{
    require_gpu_or_skip();
    printf("a usable CUDA device was found\n");
    return CLINIC_EXIT_OK;
}
