/*
 * fs_int.h - what the Linux and POSIX bodies of the directory streams
 * (fs_linux.c, fs_posix.c) share: a dirent's d_type said as walk.h's
 * lo_ftype. A body for a system without d_type (Windows) translates its
 * own word for it instead.
 */
#ifndef LEFTOVER_OS_FS_INT_H
#define LEFTOVER_OS_FS_INT_H

#include <dirent.h>

#include "leftover/walk.h"

static inline unsigned char lo_fs_ftype(unsigned char d_type)
{
	switch (d_type) {
	case DT_UNKNOWN:
		return LO_FT_UNKNOWN;
	case DT_REG:
		return LO_FT_REG;
	case DT_DIR:
		return LO_FT_DIR;
	case DT_LNK:
		return LO_FT_LNK;
	default:
		return LO_FT_OTHER;
	}
}

#endif
