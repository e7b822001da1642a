/*
 * resolve_path.c - paths as the loader spells them (resolve_int.h,
 * resolve.h): the directory a path is in, which $ORIGIN names, and the
 * dynamic string tokens ld.so expands in DT_RPATH, DT_RUNPATH and DT_NEEDED
 * ($ORIGIN, $LIB, $PLATFORM, braced or not) with the target's values.
 */
#include <stdbool.h>
#include <string.h>

#include "leftover/buf.h"
#include "loader/resolve_int.h"

const char *lo_resolve_keep_dirname(proc *p, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return lo_strpool_add(&p->pool, ".", 1);
	return lo_strpool_add(&p->pool, path, slash == path ? 1 : (size_t)(slash - path));
}

/* Is the token `name` (n bytes) written at t, in an entry that ends at `end`? */
static bool token_at(const char *t, const char *end, const char *name, size_t n, bool braced)
{
	if ((size_t)(end - t) < n || strncmp(t, name, n))
		return false;
	if (braced)
		return t + n < end && t[n] == '}';
	return t + n == end || !(t[n] == '_' || (t[n] >= 'A' && t[n] <= 'Z') ||
				 (t[n] >= 'a' && t[n] <= 'z') || (t[n] >= '0' && t[n] <= '9'));
}

void lo_resolve_expand_dst(lo_buf *out, const char *entry, size_t size, const char *origin,
			   const lo_target *target)
{
	static const struct {
		const char *name;
	} tokens[] = { { "ORIGIN" }, { "LIB" }, { "PLATFORM" } };
	const char *s = entry, *end = entry + size;

	lo_buf_clear(out);
	while (s < end) {
		size_t i, len = 0;
		bool braced = s + 1 < end && s[0] == '$' && s[1] == '{';
		const char *value = NULL, *dollar;

		if (*s != '$') { /* up to the next token, at once */
			dollar = memchr(s, '$', (size_t)(end - s));
			if (!dollar)
				dollar = end;
			lo_buf_add(out, s, (size_t)(dollar - s));
			s = dollar;
			continue;
		}
		for (i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++) {
			size_t n = strlen(tokens[i].name);

			if (!token_at(s + 1 + braced, end, tokens[i].name, n, braced))
				continue;
			len = 1 + braced + n + braced;
			value = i == 0 ? origin : i == 1 ? target->lib : target->platform;
			/*
			 * glibc knows the token but has no value for it (no AT_PLATFORM
			 * from the kernel): it drops the whole entry (_dl_dst_substitute).
			 * musl's tokens without a value are no tokens: kept as written.
			 */
			if (!value && !target->dst_strict) {
				lo_buf_clear(out);
				return;
			}
			break;
		}
		if (!value) { /* not a token ld.so knows: kept as written */
			lo_buf_putc(out, *s++);
			continue;
		}
		lo_buf_puts(out, value);
		s += len;
	}
}

bool lo_resolve_dst_refused(const char *list, const lo_target *target)
{
	const char *d;

	if (!target->dst_strict)
		return false;
	for (d = strchr(list, '$'); d; d = strchr(d + 1, '$'))
		if (strncmp(d, "$ORIGIN", 7) && strncmp(d, "${ORIGIN}", 9))
			return true;
	return false;
}
