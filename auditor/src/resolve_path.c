/*
 * resolve_path.c - paths as the loader spells them (resolve_int.h,
 * resolve.h): the directory a path is in, which $ORIGIN names, and the
 * dynamic string tokens ld.so expands in DT_RPATH, DT_RUNPATH and DT_NEEDED
 * ($ORIGIN, $LIB, $PLATFORM, braced or not) with the target's values.
 */
#include <stdbool.h>
#include <string.h>

#include "leftover/buf.h"
#include "resolve_int.h"

char *lo_resolve_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return lo_xstrdup(".");
	if (slash == path)
		return lo_xstrdup("/");
	return lo_xstrndup(path, (size_t)(slash - path));
}

char *lo_resolve_expand_dst(const char *entry, const char *origin, const lo_target *target)
{
	static const struct {
		const char *name;
	} tokens[] = { { "ORIGIN" }, { "LIB" }, { "PLATFORM" } };
	lo_buf b = LO_BUF_INIT;
	const char *s = entry;

	while (*s) {
		size_t i, len = 0;
		bool braced = s[0] == '$' && s[1] == '{';
		const char *value = NULL;

		if (*s != '$') {
			lo_buf_putc(&b, *s++);
			continue;
		}
		for (i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++) {
			size_t n = strlen(tokens[i].name);
			const char *t = s + 1 + braced;

			if (strncmp(t, tokens[i].name, n))
				continue;
			if (braced ? t[n] != '}' : (t[n] == '_' || (t[n] >= 'A' && t[n] <= 'Z') ||
						    (t[n] >= 'a' && t[n] <= 'z') ||
						    (t[n] >= '0' && t[n] <= '9')))
				continue;
			len = 1 + braced + n + braced;
			value = i == 0 ? origin : i == 1 ? target->lib : target->platform;
			/*
			 * glibc knows the token but has no value for it (no AT_PLATFORM
			 * from the kernel): it drops the whole entry (_dl_dst_substitute).
			 * musl's tokens without a value are no tokens: kept as written.
			 */
			if (!value && !target->dst_strict) {
				lo_buf_dispose(&b);
				return lo_xstrdup("");
			}
			break;
		}
		if (!value) { /* not a token ld.so knows: kept as written */
			lo_buf_putc(&b, *s++);
			continue;
		}
		lo_buf_puts(&b, value);
		s += len;
	}
	return lo_buf_detach(&b);
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
