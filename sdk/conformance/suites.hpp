// One empty function per suite file, called by run(). The suites register themselves from static
// initialisers, and a linker takes an object file out of a static library only when something it
// needs is defined there: calling these pulls every suite into any program that calls run().
#pragma once

namespace tessera::conformance {

void link_load_suite();
void link_lifetime_suite();
void link_errors_suite();
void link_topology_suite();
void link_cost_model_suite();
void link_partitioner_suite();
void link_layout_mapper_suite();
void link_memory_model_suite();
void link_codegen_suite();
void link_peak_suite();

}  // namespace tessera::conformance
