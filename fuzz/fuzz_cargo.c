/*
 * fuzz_cargo.c - the cargo reader (buildsys_cargo.c): the TOML of the
 * workspace's and members' Cargo.toml (tables, dotted keys, strings of
 * every kind, arrays, inline tables, member globs), and the dep-info (.d)
 * files of each profile dir, through lo_buildsys_open on a scratch
 * workspace whose target/ holds .rustc_info.json.
 *
 * The input is the workspace (fuzz/common.h): first its Cargo.toml, then
 * "@@ PATH" lines each starting a file at PATH (alpha/Cargo.toml,
 * target/debug/.fingerprint/x, target/debug/libbeta.d, ...). Dep-info
 * names outputs by absolute path: "@T@" in a part stands for the scratch
 * dir, which changes from run to run. fuzz/make-seeds writes a real
 * `cargo build` so. Nothing is spawned.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "leftover/buf.h"
#include "leftover/buildsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char marker[] = "{}";
	lo_fuzz_part parts[LO_FUZZ_PARTS];
	size_t n = lo_fuzz_split(data, size, "Cargo.toml", parts), i;
	const char *dir = lo_fuzz_tree_reset();
	lo_buildsys *bs = NULL;
	lo_buf b = LO_BUF_INIT;

	for (i = 0; i < n; i++) {
		const char *p = (const char *)parts[i].data, *end = p + parts[i].size, *at;

		lo_buf_clear(&b);
		while (p < end && (at = memmem(p, (size_t)(end - p), "@T@", 3))) {
			lo_buf_add(&b, p, (size_t)(at - p));
			lo_buf_puts(&b, dir);
			p = at + 3;
		}
		lo_buf_add(&b, p, (size_t)(end - p));
		lo_fuzz_tree_put(parts[i].name, (const uint8_t *)(b.ptr ? b.ptr : ""), b.len);
	}
	lo_buf_dispose(&b);
	lo_fuzz_tree_put("target/.rustc_info.json", (const uint8_t *)marker, sizeof(marker) - 1);
	/* the model judges every recorded path as it opens (the orphan list) */
	if (lo_buildsys_open(&bs, dir, NULL, NULL, 0) == 0)
		lo_buildsys_free(bs);
	return 0;
}
