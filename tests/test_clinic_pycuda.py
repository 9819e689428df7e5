"""Unit tests of common/clinic_pycuda.py's words for Numba's CUDA errors
(numba_error_text, error_text): no GPU, no Numba needed, the exceptions are
stand-ins with the classes' names, modules and messages."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import clinic_pycuda as clinic  # noqa: E402


class CudaAPIError(Exception):
    """Numba's class: a code and the message `Call to <f> results in <E>`,
    printed as `[<code>] <message>`."""
    def __init__(self, code, msg):
        super().__init__(code, msg)
        self.code, self.msg = code, msg

    def __str__(self):
        return "[%s] %s" % (self.code, self.msg)


class CUDAError(Exception):
    pass


CUDAError.__module__ = "cuda.core._utils.cuda_utils"


class CodeEnum(int):
    """A bindings' enum member: int() gives the code, str() its name."""
    def __str__(self):
        return "<CUresult.CUDA_ERROR_ILLEGAL_ADDRESS: 700>"


class NumbaErrorText(unittest.TestCase):
    def test_call_and_error_whatever_the_code_looks_like(self):
        for code in (700, CodeEnum(700)):
            e = CudaAPIError(code, "Call to cuMemcpyDtoH results in "
                             "CUDA_ERROR_ILLEGAL_ADDRESS")
            text = clinic.numba_error_text(e)
            self.assertRegex(text, r"^CudaAPIError: cuMemcpyDtoH failed: "
                             r"CUDA_ERROR_ILLEGAL_ADDRESS( \(.+\))?$")
            self.assertNotIn("700", text)

    def test_cuda_core_error_gives_its_name(self):
        e = CUDAError("CUDA_ERROR_ILLEGAL_ADDRESS: While executing a kernel, "
                      "the device encountered ...")
        self.assertEqual(clinic.numba_error_text(e),
                         "CUDAError: CUDA_ERROR_ILLEGAL_ADDRESS")

    def test_other_exceptions_are_not_numbas(self):
        self.assertIsNone(clinic.numba_error_text(ValueError("x")))
        odd = CudaAPIError(1, "something else")
        self.assertIsNone(clinic.numba_error_text(odd))
        self.assertEqual(clinic.error_text(TypeError("wording changes")),
                         "TypeError")


if __name__ == "__main__":
    unittest.main()
