#include "test.h"

static void suite_energy(void)
{
}
