/*
 * version.h: the version both programs print (--version) and the daemon
 * reports (/healthz, opscreen_build_info).
 */
#ifndef OPSCREEN_VERSION_H
#define OPSCREEN_VERSION_H

#define OPSCREEN_VERSION	"0.1.0"

#endif
