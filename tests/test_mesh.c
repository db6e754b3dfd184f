#include "test.h"

static void suite_mesh(void)
{
}
