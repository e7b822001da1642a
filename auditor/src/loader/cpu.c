/*
 * cpu.c - the glibc-hwcaps levels this CPU supports (see cpu.h).
 *
 * The x86-64 levels are those of the x86-64 psABI, as glibc checks them
 * (sysdeps/x86/get-isa-level.h): each level is a set of CPUID feature
 * bits, written as data below, plus, from v3 on, the AVX (and for v4 the
 * AVX-512) register state enabled by the OS in XCR0. Other machines have
 * no level leftover can tell yet: none is supported, so only the plain
 * directories are searched there.
 */
#include <stdint.h>
#include <string.h>

#include "leftover/cpu.h"

#if defined(__x86_64__)
#include <cpuid.h>

/* One CPUID feature bit: leaf, register (0 EBX, 1 ECX, 2 EDX), bit. */
typedef struct feature {
	uint32_t leaf;
	unsigned char reg, bit;
} feature;

#define ECX1(b) { 1, 1, b }
#define EBX7(b) { 7, 0, b }
#define ECX81(b) { 0x80000001u, 1, b }

static const struct level {
	const char *name;
	uint64_t xcr0;        /* register state the OS must enable */
	feature features[16]; /* ends at leaf 0 */
} levels[] = {
	{ "x86-64-v2", 0,
	  { ECX1(0) /* SSE3 */, ECX1(9) /* SSSE3 */, ECX1(13) /* CMPXCHG16B */,
	    ECX1(19) /* SSE4.1 */, ECX1(20) /* SSE4.2 */, ECX1(23) /* POPCNT */,
	    ECX81(0) /* LAHF */ } },
	{ "x86-64-v3", 0x6 /* SSE, AVX */,
	  { ECX1(12) /* FMA */, ECX1(22) /* MOVBE */, ECX1(27) /* OSXSAVE */, ECX1(28) /* AVX */,
	    ECX1(29) /* F16C */, EBX7(3) /* BMI1 */, EBX7(5) /* AVX2 */, EBX7(8) /* BMI2 */,
	    ECX81(5) /* LZCNT */ } },
	{ "x86-64-v4", 0xe6 /* and opmask, ZMM */,
	  { EBX7(16) /* AVX512F */, EBX7(17) /* AVX512DQ */, EBX7(28) /* AVX512CD */,
	    EBX7(30) /* AVX512BW */, EBX7(31) /* AVX512VL */ } },
};

static bool has(const feature *f)
{
	unsigned int r[4] = { 0 };

	if (f->leaf == 7) {
		if (!__get_cpuid_count(7, 0, &r[3], &r[0], &r[1], &r[2]))
			return false;
	} else if (!__get_cpuid(f->leaf, &r[3], &r[0], &r[1], &r[2])) {
		return false;
	}
	return (r[f->reg] >> f->bit) & 1;
}

static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

bool lo_cpu_has_hwcap(const char *name)
{
	size_t i, j;

	/* each level includes the ones below it */
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		for (j = 0; levels[i].features[j].leaf; j++)
			if (!has(&levels[i].features[j]))
				return false;
		if (levels[i].xcr0 && (xcr0() & levels[i].xcr0) != levels[i].xcr0)
			return false;
		if (!strcmp(levels[i].name, name))
			return true;
	}
	return false;
}
#else
bool lo_cpu_has_hwcap(const char *name)
{
	(void)name;
	return false;
}
#endif
