/*
 * nvml.c: GPU discovery through NVML, loaded at run time so that the daemon
 * starts (and says why) on hosts without the NVIDIA driver. NVML never creates
 * a CUDA context, which keeps the daemon free of one.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "opscreend.h"

typedef int (*nvml_fn_void)(void);
typedef int (*nvml_fn_count)(unsigned int *);

int
nvml_device_count(char *why, size_t len)
{
	void		*h;
	nvml_fn_void	 init, shutdown;
	nvml_fn_count	 count;
	unsigned int	 n = 0;
	int		 rc;

	if ((h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(why, len, "NVML not available (%s)", dlerror());
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
