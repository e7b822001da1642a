/*
 * fuzz_ldso_cache.c - the /etc/ld.so.cache reader (ldconfig.c) on arbitrary
 * bytes, through lo_resolver_new as the scan calls it.
 */
#include "common.h"
#include "leftover/resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_resolver_opts opts = { 0 };
	lo_resolver *r;

	/* No ld.so.conf fallback: this target is about the cache alone. */
	opts.ldso_cache = lo_fuzz_file(data, size);
	opts.ldso_conf = "";
	if (lo_resolver_new(&r, &opts) < 0)
		return 0;
	lo_resolver_free(r);
	return 0;
}
