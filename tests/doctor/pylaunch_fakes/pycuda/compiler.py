from pycuda.driver import Module


class CudaModule:
    def get_function(self, name):
        return self.module.get_function(name)


class SourceModule(CudaModule):
    def __init__(self, source, nvcc="nvcc", options=None):
        self.module = Module()
