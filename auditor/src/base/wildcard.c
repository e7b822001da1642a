/*
 * wildcard.c - shell wildcards matched against a name (wildcard.h).
 */
#include <stdbool.h>
#include <stddef.h>

#include "leftover/wildcard.h"

/* The end of the bracket expression at p (just after '['), or NULL when it is not closed. */
static const char *bracket(const char *p, unsigned char c, int flags, bool *matched)
{
	bool negate = *p == '!' || *p == '^', first = true;

	*matched = false;
	if (negate)
		p++;
	for (; *p && (first || *p != ']'); first = false) {
		unsigned char lo = (unsigned char)*p++, hi;

		if (lo == '\\' && !(flags & LO_WILD_NOESCAPE) && *p)
			lo = (unsigned char)*p++;
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			hi = (unsigned char)p[1];
			p += 2;
			if (hi == '\\' && !(flags & LO_WILD_NOESCAPE) && *p)
				hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			*matched = true;
	}
	if (*p != ']')
		return NULL;
	*matched ^= negate;
	return p + 1;
}

/* A leading period (of the name, or of a component with LO_WILD_PATHNAME) only matched by one. */
static bool leading_period(const char *name, const char *start, int flags)
{
	return (flags & LO_WILD_PERIOD) && *name == '.' &&
	       (name == start || ((flags & LO_WILD_PATHNAME) && name[-1] == '/'));
}

static bool match(const char *p, const char *name, const char *start, int flags)
{
	for (; *p; p++, name++) {
		bool matched;
		const char *end;

		switch (*p) {
		case '?':
			if (!*name || ((flags & LO_WILD_PATHNAME) && *name == '/') ||
			    leading_period(name, start, flags))
				return false;
			break;
		case '*':
			if (leading_period(name, start, flags))
				return false;
			while (p[1] == '*')
				p++;
			for (;; name++) {
				if (match(p + 1, name, start, flags))
					return true;
				if (!*name || ((flags & LO_WILD_PATHNAME) && *name == '/'))
					return false;
			}
		case '[':
			if (!*name || ((flags & LO_WILD_PATHNAME) && *name == '/') ||
			    leading_period(name, start, flags))
				return false;
			if ((end = bracket(p + 1, (unsigned char)*name, flags, &matched))) {
				if (!matched)
					return false;
				p = end - 1;
				break;
			}
			/* an unclosed '[' is itself */
			if (*name != '[')
				return false;
			break;
		case '\\':
			if (!(flags & LO_WILD_NOESCAPE) && p[1])
				p++;
			/* fall through */
		default:
			if (*name != *p)
				return false;
		}
	}
	return !*name;
}

bool lo_wildcard_match(const char *pattern, const char *name, int flags)
{
	return match(pattern, name, name, flags);
}
