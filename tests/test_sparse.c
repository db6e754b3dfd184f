#include "test.h"

static void suite_sparse(void)
{
}
