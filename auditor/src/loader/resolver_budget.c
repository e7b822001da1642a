/*
 * resolver_budget.c - how much of the tables the resolver keeps in memory
 * (resolve_int.h): the list of resident objects by last use, and the
 * budget they are held to, worked out from the process's own memory.
 */
#include "leftover/os.h"
#include "loader/resolve_int.h"

/*
 * The budget: what the process's heap and its file pages other than the
 * tables leave of `limit`. The tables are counted whole, but lookups read
 * only some pages of a big library's: the file pages the process has are
 * the truth, and where they are fewer than the count, the difference is
 * budget too. A page read later of a table already counted is seen at the
 * next look (LO_LOOK_EVERY).
 */
static void limit_update(lo_resolver *r, size_t anon, size_t file)
{
	size_t other = file > r->resident ? file - r->resident : 0;

	r->budget = r->limit > anon + other ? r->limit - anon - other : 0;
	r->look_at = r->resident + r->budget / 8;
	r->since_look = 0;
}

void lo_resolver_limit_init(lo_resolver *r, size_t limit)
{
	size_t anon, file;

	if ((r->memory = lo_os_resident_open()) < 0)
		return;
	if (!lo_os_resident(r->memory, &anon, &file)) {
		lo_os_resident_close(r->memory);
		r->memory = -1;
		return;
	}
	r->limit = limit;
	limit_update(r, anon, file);
}

void lo_resolver_resident_unlink(lo_resolver *r, parsed *o)
{
	if (!o->resident)
		return;
	*(o->newer ? &o->newer->older : &r->newest) = o->older;
	*(o->older ? &o->older->newer : &r->oldest) = o->newer;
	o->newer = o->older = NULL;
	o->resident = false;
	r->resident -= o->bytes;
}

void lo_resolver_resident_touch(lo_resolver *r, parsed *o, bool last)
{
	lo_resolver_resident_unlink(r, o);
	o->resident = true;
	r->resident += o->bytes;
	if (o->bytes > r->largest)
		r->largest = o->bytes;
	if (last) {
		o->older = NULL;
		o->newer = r->oldest;
		*(r->oldest ? &r->oldest->older : &r->newest) = o;
		r->oldest = o;
	} else {
		o->newer = NULL;
		o->older = r->newest;
		*(r->newest ? &r->newest->newer : &r->oldest) = o;
		r->newest = o;
	}
}

/* The budget, or twice the largest object when that is more (LO_RESIDENT_BUDGET says why). */
static size_t budget_now(const lo_resolver *r)
{
	return r->largest > r->budget / 2 ? 2 * r->largest : r->budget;
}

bool lo_resolver_over_budget(lo_resolver *r, size_t *keep)
{
	size_t anon, file;

	if (r->limit &&
	    (r->resident > budget_now(r) || r->resident > r->look_at ||
	     ++r->since_look >= LO_LOOK_EVERY) &&
	    lo_os_resident(r->memory, &anon, &file))
		limit_update(r, anon, file);
	*keep = budget_now(r) / 4 * 3;
	return r->resident > budget_now(r);
}
