/*
 * fuzz_ldso_conf.c - the ld.so.conf reader (ldconfig.c) on arbitrary text,
 * through lo_resolver_new with no cache, as when /etc/ld.so.cache cannot
 * be read. `include` lines glob the real file system, so the input may
 * name any file; the reader must cope with whatever it opens.
 */
#include "common.h"
#include "leftover/resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lo_resolver_opts opts = { 0 };
	lo_resolver *r;

	opts.ldso_cache = "";
	opts.ldso_conf = lo_fuzz_file(data, size);
	if (lo_resolver_new(&r, &opts) < 0)
		return 0;
	lo_resolver_free(r);
	return 0;
}
