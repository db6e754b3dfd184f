#include "test.h"

static void suite_sim(void)
{
}
