# kernels/: libopscreen_kernels (device, CUDA) and libopscreen_kernels_host
# (the same oracles, generation and comparison compiled for the CPU), the
# Check suite of the host build, and libopscreen_nccl (NCCL for several GPUs
# of one host).  Included by the Makefile, which adds $(KERNEL_ALL) to `all`
# and $(KERNEL_UNIT_TESTS) to UNIT_TESTS.  Without nvcc the device library is
# skipped with a message, and without nvcc or nccl.h the NCCL library; the
# host build needs only a C compiler.

NVCC	?= $(shell command -v nvcc 2>/dev/null || \
	   { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 \
	     -gencode arch=compute_90,code=compute_90

KERNEL_HDRS	= kernels/osk.h kernels/osk_core.h kernels/osk_common.h \
		  kernels/osk_dtype.h kernels/osk_gen.h kernels/osk_math.h \
		  kernels/osk_reduce.h kernels/osk_compare.h kernels/osk_plan.h
# No contraction into FMA: generation must round the same on host and device.
KERNEL_CFLAGS	= $(CFLAGS) -fPIC -ffp-contract=off -Ikernels
NVCCFLAGS	?= -O2
# where the device library finds libcudart and libcublas; empty for a build
# that relies on the loader's configuration (the opscreen package: no RUNPATH)
KERNEL_RPATH	?= -Xlinker -rpath,$(CUDA_HOME)/lib64
KERNEL_NVFLAGS	= $(NVCCFLAGS) -std=c++17 -fmad=false $(CUDA_ARCH) -Ikernels \
	-Xcompiler -fPIC,-Wall,-Wextra,-Wno-unused-parameter,-ffp-contract=off

# NCCL's header: under NCCL_HOME, beside CUDA's, or on the system's path
# (NCCL_HOME's lib/ is then searched at link and load time)
NCCL_HOME	?=
NCCL_H		?= $(firstword $(wildcard $(if $(NCCL_HOME),$(NCCL_HOME)/include/nccl.h) \
		   $(if $(CUDA_HOME),$(CUDA_HOME)/include/nccl.h) \
		   /usr/include/nccl.h /usr/local/include/nccl.h))
NCCL_CFLAGS	= $(if $(CUDA_HOME),-I$(CUDA_HOME)/include) \
		  $(if $(NCCL_HOME),-I$(NCCL_HOME)/include)
NCCL_COMMA	:= ,
NCCL_LDFLAGS	?= $(if $(NCCL_HOME),-L$(NCCL_HOME)/lib -Xlinker -rpath$(NCCL_COMMA)$(NCCL_HOME)/lib)

KERNEL_ALL	= build/libopscreen_kernels_host.so
ifneq ($(strip $(NVCC)),)
KERNEL_ALL	+= build/libopscreen_kernels.so
ifneq ($(strip $(NCCL_H)),)
KERNEL_ALL	+= build/libopscreen_nccl.so
else
KERNEL_ALL	+= kernels-nccl-skipped
endif
else
KERNEL_ALL	+= kernels-device-skipped kernels-nccl-skipped
endif
KERNEL_UNIT_TESTS = build/check_kernels

.PHONY: kernels-device-skipped kernels-nccl-skipped

kernels-device-skipped:
	@echo "kernels: nvcc not found, device library build/libopscreen_kernels.so SKIPPED (host build only)"

kernels-nccl-skipped:
	@echo "kernels: $(if $(strip $(NVCC)),nccl.h not found (set NCCL_HOME),nvcc not found), NCCL library build/libopscreen_nccl.so SKIPPED"

build/kernels/%.o: kernels/%.c $(KERNEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(KERNEL_CFLAGS) -c -o $@ $<

build/libopscreen_kernels_host.so: build/kernels/osk_host.o build/kernels/osk_common.o
	$(CC) $(KERNEL_CFLAGS) $(LDFLAGS) -shared -o $@ $^ -lm

build/kernels/osk_cuda.o: kernels/osk_cuda.cu $(KERNEL_HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(KERNEL_NVFLAGS) -c -o $@ $<

build/libopscreen_kernels.so: build/kernels/osk_cuda.o build/kernels/osk_common.o
	$(NVCC) -shared --cudart shared $(CUDA_ARCH) -o $@ $^ \
	    $(KERNEL_RPATH) -lcublas -lpthread

# plain C on the CUDA runtime's and NCCL's C APIs; linked by nvcc like the
# device library (its shared CUDA runtime, KERNEL_RPATH)
build/kernels/osk_nccl.o: kernels/osk_nccl.c kernels/osk_nccl.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(KERNEL_CFLAGS) $(NCCL_CFLAGS) -c -o $@ $<

build/libopscreen_nccl.so: build/kernels/osk_nccl.o
	$(NVCC) -shared --cudart shared -o $@ $^ \
	    $(KERNEL_RPATH) $(NCCL_LDFLAGS) -lnccl

build/check_kernels: tests/unit/check_kernels.c build/kernels/osk_host.o \
		build/kernels/osk_common.o $(KERNEL_HDRS)
	$(CC) $(KERNEL_CFLAGS) -o $@ tests/unit/check_kernels.c \
	    build/kernels/osk_host.o build/kernels/osk_common.o $(CHECK_LIBS) -lm
