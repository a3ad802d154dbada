/*
 * store_fixture.h: a fresh store in a temporary directory for the Check suites
 * that build stores by hand, and the daemon symbols those suites do not link.
 * Included by one .c file per test program.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "opscreend.h"

struct opscreend *env;
double now_mono(void) { return 0; }
double now_wall(void) { return 1000.0; }
void env_wakeup(void) {}

static char	 dir[64];
static char	 path[128];

static struct store *
fresh(void)
{
	char		 err[256];
	struct store	*s;

	snprintf(dir, sizeof(dir), "/tmp/check_store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	s = store_open(path, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	return s;
}

static void
cleanup(struct store *s)
{
	char	 cmd[192];

	store_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
