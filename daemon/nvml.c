/*
 * nvml.c: GPU discovery through NVML, loaded at run time so that the daemon
 * starts (and says why) on hosts without the NVIDIA driver. NVML never creates
 * a CUDA context, which keeps the daemon free of one. Whether the host has
 * NVIDIA GPUs at all is told by the driver's device nodes, not by NVML: an
 * NVML that fails to load on such a host is a fault, not a GPU-less machine.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opscreend.h"

typedef int (*nvml_fn_void)(void);
typedef int (*nvml_fn_count)(unsigned int *);

/* 1 when one of the colon-separated paths exists (which: the first such). */
int
nvml_gpu_host(const char *paths, char *which, size_t len)
{
	char	 buf[1024], *p, *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", paths);
	for (p = buf; (tok = strtok_r(p, ":", &save)) != NULL; p = NULL)
		if (access(tok, F_OK) == 0) {
			snprintf(which, len, "%s", tok);
			return 1;
		}
	return 0;
}

int
nvml_device_count(const char *lib, char *why, size_t len)
{
	void		*h;
	nvml_fn_void	 init, shutdown;
	nvml_fn_count	 count;
	unsigned int	 n = 0;
	int		 rc;

	if ((h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(why, len, "NVML '%s' cannot be loaded (%s)", lib,
		    dlerror());
		return 0;
	}
	init = (nvml_fn_void)dlsym(h, "nvmlInit_v2");
	shutdown = (nvml_fn_void)dlsym(h, "nvmlShutdown");
	count = (nvml_fn_count)dlsym(h, "nvmlDeviceGetCount_v2");
	if (!init || !shutdown || !count) {
		snprintf(why, len, "NVML lacks nvmlInit_v2/nvmlDeviceGetCount_v2");
		dlclose(h);
		return 0;
	}
	if ((rc = init()) != 0) {
		snprintf(why, len, "nvmlInit failed (NVML error %d)", rc);
		dlclose(h);
		return 0;
	}
	if ((rc = count(&n)) != 0) {
		snprintf(why, len, "nvmlDeviceGetCount failed (NVML error %d)", rc);
		n = 0;
	} else if (n == 0)
		snprintf(why, len, "NVML reports no GPU");
	shutdown();
	dlclose(h);
	return (int)n;
}
