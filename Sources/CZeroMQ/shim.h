#include <zmq.h>
// eventfd(2), which the Glibc module leaves out: ServiceLoop's wake-up.
#include <sys/eventfd.h>
