/*
 * Tessera plugin ABI, version 1.5.
 *
 * The only thing that crosses a plugin `.so` boundary. C99, standard headers only, so a vendor can
 * build a plugin with any compiler. C++ plugin authors normally use <tessera/sdk/plugin.hpp>, which
 * implements everything below and never lets an exception escape.
 *
 * EVOLUTION RULES (read before changing this file)
 *  1. Released layouts are frozen: tests/abi/ checks every offset of every released version (1.0,
 *     1.1, 1.2, 1.3, 1.4, 1.5) with static asserts.
 *  2. Append only. A new field or method goes at the END of its struct, and bumps
 *     TESSERA_ABI_MINOR. Nothing is ever removed, reordered or retyped within a major version.
 *  3. Every struct that may grow starts with `size_t struct_size`, filled by whoever creates the
 *     struct with sizeof() of the version it was built against. A reader touches a field only if
 *     `offsetof(field) + sizeof(field) <= struct_size`; fields beyond it read as "absent" (0/NULL).
 *  4. The host calls a method only if the plugin's descriptor minor version has it (rule 3 makes
 *     that check mechanical), and a plugin built for 1.N serves hosts of 1.M by reporting 1.N.
 *  5. A change that cannot follow these rules is a new major version; a plugin returns NULL from
 *     tessera_plugin_query for a major version it was not built for.
 *  6. Every field added after 1.0 says "since 1.N". The 1.N size of a grown struct is the offset of
 *     its first field of a later minor version: what a plugin built for 1.N puts in struct_size.
 *
 * HISTORY
 *  1.0  the six interfaces.
 *  1.1  MemoryModel: channel_of and get_channel_stats (per-channel statistics), and
 *       tessera_memory_info's description and source (what the model simulates, and from which
 *       configuration), so a host can report any memory model channel by channel.
 *  1.2  TESSERA_DTYPE_BFP8, a block floating-point storage type (no layout change). The host
 *       sends it (as an operand's dtype, or asking peak_flops_per_s) only to a plugin whose
 *       descriptor reports minor >= 2: a plugin built for 1.0 or 1.1 never sees it.
 *  1.3  tessera_partition_plan's core_digits: which core runs each tile of a plan, so the host
 *       lays the plan's transfers on the Topology's routes (a plan without them is placed on the
 *       first cores and keeps its own times).
 *  1.4  MemoryModel: offer, a host's request front end in one call (requests offered in order at
 *       their cycles, each again every cycle until accepted, the model running in between), so a
 *       trace-driven host crosses the boundary once per batch of requests, not two or three times
 *       per simulated cycle. A host runs the same front end over submit and advance for a plugin
 *       built for 1.0 to 1.3.
 *  1.5  tessera_endpoint's bytes_per_s: a memory controller's own rate (what its memory delivers
 *       through all its links together), so a controller reached through several network tiles
 *       counts each link up to that rate. A plugin built for 1.0 to 1.4 leaves it 0 (not known:
 *       the controller's links bound it).
 *       tessera_cost_model_info's dispatch_host_s, dispatch_traced_s and launch_s: the fixed costs
 *       every op pays outside the overlap of loads and compute (a host issuing its command, a
 *       replayed trace issuing it, the cores starting its kernels). A plugin built before 1.5
 *       fills none of them and they read as 0: no fixed cost.
 *       TESSERA_DTYPE_BFP4 and TESSERA_DTYPE_BFP2, narrower block floating-point storage types,
 *       sent only to a plugin whose descriptor reports minor >= 5 (as BFP8 in 1.2); and
 *       tessera_tile_query's math_fidelity, the FPU fidelity the host asks a tile to run at
 *       (0: the plugin's own default, which is all a plugin built before 1.5 ever does: the host
 *       passes query_size, so such a plugin never reads the field).
 *
 * OWNERSHIP, the one rule: whoever allocates, frees. Objects made by a plugin are released with
 * their own `release`; statuses are made by the host (make_status) and freed by the host after the
 * call that returned them; strings a plugin returns stay owned by the object that returned them and
 * live until that object is released (unless a method says otherwise). Data a plugin hands back in
 * bulk (plans, files, completions) goes through host-provided sink callbacks, which copy it.
 *
 * ERRORS: every method returns `tessera_status*`; NULL means success. A non-NULL status was made by
 * the host's `make_status`; its code is one of tessera_status_code. Nothing may throw, abort or
 * longjmp across this boundary. "Infeasible" (a plan that does not fit, an unsupported dtype) is a
 * RESULT described in the output, never an error status.
 *
 * UNITS: bytes, seconds, bytes per second, FLOP per second, hertz; integer cycles only where a
 * method says so, in the clock of the object that reports `clock_hz`.
 *
 * THREADS: tessera_plugin_query may be called from any thread, any number of times, and must return
 * the same descriptor each time. Methods marked [concurrent] may be called on one object from many
 * threads at once; all others need external synchronisation per object (distinct objects are
 * independent).
 */
#ifndef TESSERA_PLUGIN_ABI_H
#define TESSERA_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_ABI_MAJOR 1
#define TESSERA_ABI_MINOR 5

/* The single exported symbol of a plugin library. */
#define TESSERA_PLUGIN_QUERY_SYMBOL "tessera_plugin_query"

#if defined(_WIN32)
#define TESSERA_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TESSERA_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Upper bounds shared by fixed-size arrays below. */
#define TESSERA_MAX_RANKS 16  /* rank variables of one Einsum; axes of one tensor */
#define TESSERA_MAX_LEVELS 16 /* hierarchy levels of a tree chip */

/* ------------------------------------------------------------------------------------------------
 * Status
 * ---------------------------------------------------------------------------------------------- */

/* Mirrors tessera::StatusCode (framework/common/status.hpp); a static_assert keeps them equal. */
typedef enum tessera_status_code {
  TESSERA_OK = 0,
  TESSERA_INVALID_ARGUMENT = 1, /* NULL where an object is required, bad index, malformed text */
  TESSERA_NOT_FOUND = 2,        /* a named thing (parameter, file, preset) does not exist */
  TESSERA_OUT_OF_RANGE = 3,     /* an output buffer is too small; the needed size is reported */
  TESSERA_UNIMPLEMENTED = 4,    /* the method exists in the ABI but this plugin does not do it */
  TESSERA_FAILED_PRECONDITION =
      5, /* the object is not in a state to do this (e.g. not configured) */
  TESSERA_RESOURCE_EXHAUSTED = 6, /* out of memory or another hard limit */
  TESSERA_INTERNAL = 7            /* a bug; an exception caught at the boundary lands here */
} tessera_status_code;

/* Opaque; made and freed by the host only. */
typedef struct tessera_status tessera_status;

typedef enum tessera_log_level {
  TESSERA_LOG_TRACE = 0,
  TESSERA_LOG_DEBUG = 1,
  TESSERA_LOG_INFO = 2,
  TESSERA_LOG_WARN = 3,
  TESSERA_LOG_ERROR = 4
} tessera_log_level;

/* What the host offers the plugin. Owned by the host, valid for as long as the library is loaded.
 * Both functions are thread-safe and never fail (make_status returns a status even when out of
 * memory: a shared static one with code TESSERA_RESOURCE_EXHAUSTED). */
typedef struct tessera_host_api {
  size_t struct_size;
  uint32_t abi_major; /* the host's ABI version */
  uint32_t abi_minor;
  /* A status to return from a method. `message` (UTF-8, may be NULL) is copied. code != OK. */
  tessera_status* (*make_status)(int32_t code, const char* message);
  /* A log line, attributed by the host to the plugin currently being called. Copied. */
  void (*log)(int32_t level, const char* message);
  void* reserved[8];
} tessera_host_api;

/* ------------------------------------------------------------------------------------------------
 * Common value types
 * ---------------------------------------------------------------------------------------------- */

typedef enum tessera_dtype {
  TESSERA_DTYPE_FP32 = 0,
  TESSERA_DTYPE_FP16 = 1,
  TESSERA_DTYPE_BF16 = 2,
  TESSERA_DTYPE_FP8 = 3,
  TESSERA_DTYPE_INT8 = 4,
  TESSERA_DTYPE_INT32 = 5,
  TESSERA_DTYPE_FP64 = 6,
  /* since 1.2. Tenstorrent's block-fp8 "bfp8_b": blocks of 16 values share one 8-bit exponent, each
   * value keeps a sign and a 7-bit mantissa, so an element takes 1 + 1/16 = 1.0625 bytes (a 32x32
   * tile of 1024 values is 1024 mantissa bytes + 64 exponent bytes = 1088 bytes: tt-metal's own
   * tests size a Bfp8_b tile as `1 * 32 * 32 + 64`). A storage type:
   * Tensix unpacks it to its math format, so an op whose weights are bfp8 computes at the rate of
   * its other (activation) operand. */
  TESSERA_DTYPE_BFP8 = 7,
  /* since 1.5. Tenstorrent's "bfp4_b" and "bfp2_b": as BFP8 with a sign and a 3-bit or a 1-bit
   * mantissa per value, 16 values sharing one exponent byte, so an element takes 0.5 + 1/16 =
   * 0.5625 or 0.25 + 1/16 = 0.3125 bytes (a 32x32 tile is 512 + 64 = 576 or 256 + 64 = 320
   * bytes: tt-metal's Tile::get_tile_size, tt_metal/api/tt-metalium/tile.hpp @68cdbf8b,
   * tile_hw / 2 or / 4 plus 16 exponent bytes per face). Storage types, as BFP8. */
  TESSERA_DTYPE_BFP4 = 8,
  TESSERA_DTYPE_BFP2 = 9,
  TESSERA_DTYPE_COUNT = 10 /* grows with minor versions: 7 in 1.0 and 1.1, 8 since 1.2, 10 since
                              1.5 */
} tessera_dtype;

/* The tessera_dtype values a plugin whose descriptor reports ABI 1.`minor` knows: 0 .. this - 1. A
 * host sends a plugin no dtype at or past it; a plugin serves only these (rule 4). */
#define TESSERA_DTYPE_COUNT_FOR_MINOR(minor) ((minor) >= 5u ? 10u : (minor) >= 2u ? 8u : 7u)

/* One parameter of an object, from the chip file: `key` is a dotted path below the interface's
 * section (`cores_per_chip`, `hbm.controllers`, lists as `key.0`, `key.1`), `value` the scalar as
 * written in YAML. Both UTF-8, owned by the host, valid only during the constructor call. */
typedef struct tessera_param {
  const char* key;
  const char* value;
} tessera_param;

typedef struct tessera_params {
  size_t count;
  const tessera_param* items;
  /* Directory of the chip file the parameters came from, so relative paths in values (a memory
   * `.ini`) resolve beside it. May be NULL or "". */
  const char* base_dir;
} tessera_params;

/* ------------------------------------------------------------------------------------------------
 * Topology: cores, memories, endpoints, links, routes, hierarchy. All methods [concurrent] and
 * deterministic: the same object answers the same question the same way.
 * Endpoint indices 0 .. num_cores-1 are the cores, in the order the chip numbers them.
 * ---------------------------------------------------------------------------------------------- */

typedef enum tessera_endpoint_kind {
  TESSERA_ENDPOINT_CORE = 0,              /* a compute core with its own SRAM */
  TESSERA_ENDPOINT_MEMORY_CONTROLLER = 1, /* an off-chip memory (HBM/DRAM) controller */
  TESSERA_ENDPOINT_ROUTER = 2,    /* a switch or router: forwards, neither computes nor stores */
  TESSERA_ENDPOINT_CHIP_PORT = 3, /* a chip-to-chip link port */
  TESSERA_ENDPOINT_TREE_NODE = 4  /* an inner node of a tree chip, with a memory of its own */
} tessera_endpoint_kind;

typedef struct tessera_topology_info {
  size_t struct_size;
  uint32_t num_cores;
  uint32_t num_endpoints;
  uint32_t num_links;
  uint32_t num_chips;
  uint32_t num_levels; /* hierarchy levels (tree chips); 0 for flat chips */
  uint32_t reserved0;
  uint64_t sram_bytes_per_core; /* usable by one core's program */
  double sram_bytes_per_s;      /* one core's SRAM port, all accesses (own and remote) */
  double clock_hz;              /* core clock */
  const char* name;             /* chip name, owned by the topology */
} tessera_topology_info;

typedef struct tessera_endpoint {
  size_t struct_size;
  uint32_t kind;         /* tessera_endpoint_kind */
  uint32_t chip;         /* chip index, 0-based */
  int32_t x, y;          /* grid coordinates where meaningful, else -1 */
  uint32_t level;        /* tree level of this node (0 = root); 0 for flat chips */
  uint32_t parent;       /* tree parent endpoint; UINT32_MAX for the root and for flat chips */
  uint64_t memory_bytes; /* SRAM of a core or tree node; a memory controller's off-chip
                          * capacity (0: not known); 0 for routers and ports */
  const char* name;      /* e.g. "core 17", "hbm 2", "r(3,4)"; owned by the topology */
  /* since 1.5. A memory controller's own rate, bytes per second: the most its memory delivers
   * through all its links together (e.g. its DRAM channels' transfer rate). 0 = not known (its
   * links alone bound it), and 0 for every other kind. */
  double bytes_per_s;
} tessera_endpoint;

typedef enum tessera_link_class {
  TESSERA_LINK_ON_CHIP = 0, /* core/router/tree network inside one chip */
  TESSERA_LINK_MEMORY = 1,  /* between a memory controller and the on-chip network */
  TESSERA_LINK_CHIP_TO_CHIP = 2
} tessera_link_class;

/* A DIRECTED link. Bidirectional wires are two links. */
typedef struct tessera_link {
  size_t struct_size;
  uint32_t src;        /* endpoint index */
  uint32_t dst;        /* endpoint index */
  uint32_t link_class; /* tessera_link_class */
  uint32_t network;    /* which of several physical networks (e.g. Tenstorrent NoC 0 / NoC 1) */
  double bytes_per_s;  /* > 0 */
  double latency_s;    /* >= 0, per traversal */
} tessera_link;

/* One level of a tree chip's hierarchy, top (0) down. */
typedef struct tessera_level {
  size_t struct_size;
  const char* name;        /* e.g. "L2B", owned by the topology */
  uint32_t fanout;         /* children per node of the level above (level 0: number of roots) */
  uint32_t nodes;          /* nodes at this level in the whole system */
  uint64_t memory_bytes;   /* memory of one node of this level */
  double down_bytes_per_s; /* from one parent into one child */
  double up_bytes_per_s;   /* from one child into its parent */
} tessera_level;

typedef struct tessera_topology tessera_topology;
struct tessera_topology {
  size_t struct_size;
  void (*release)(tessera_topology* self);
  tessera_status* (*get_info)(const tessera_topology* self, tessera_topology_info* out);
  /* Peak FLOP/s of ONE core for `dtype`; 0 (and OK) when the core cannot compute in it. */
  tessera_status* (*peak_flops_per_s)(const tessera_topology* self, uint32_t dtype, double* out);
  tessera_status* (*get_endpoint)(const tessera_topology* self, uint32_t index,
                                  tessera_endpoint* out);
  tessera_status* (*get_link)(const tessera_topology* self, uint32_t index, tessera_link* out);
  /* The links a transfer from `src` to `dst` traverses, in order (the first leaves `src`, the last
   * enters `dst`; src == dst gives 0 links). `*count` receives the length. If `capacity` is smaller
   * (e.g. 0 with links == NULL to ask), returns OUT_OF_RANGE and writes nothing but `*count`.
   * A route must exist between any two cores and between every core and every memory controller,
   * both ways; a pair with no path (e.g. routers of two separate networks) is INVALID_ARGUMENT. */
  tessera_status* (*route)(const tessera_topology* self, uint32_t src, uint32_t dst,
                           uint32_t* links, size_t capacity, size_t* count);
  /* Level `index` < num_levels of a tree chip. */
  tessera_status* (*get_level)(const tessera_topology* self, uint32_t index, tessera_level* out);
  void* reserved[8];
};

/* ------------------------------------------------------------------------------------------------
 * CostModel: time of tiles on one core and of transfers. Batched: one call answers many queries.
 * All methods [concurrent].
 * ---------------------------------------------------------------------------------------------- */

typedef enum tessera_op_kind {
  TESSERA_OP_MATMUL = 0,
  TESSERA_OP_BATCHED_MATMUL = 1,
  TESSERA_OP_CONV = 2,
  TESSERA_OP_ELEMENTWISE = 3, /* binary or n-ary elementwise */
  TESSERA_OP_UNARY = 4,       /* activation functions and other one-input elementwise ops */
  TESSERA_OP_REDUCTION = 5,
  TESSERA_OP_SOFTMAX = 6,
  TESSERA_OP_NORMALIZATION = 7,
  TESSERA_OP_GATHER = 8,
  TESSERA_OP_DATA_MOVEMENT = 9,
  TESSERA_OP_OTHER = 10
} tessera_op_kind;

/* since 1.5. The fidelity of a Tenstorrent-like FPU: how many passes a multiply makes over its
 * operands' mantissa bits (LoFi one, HiFi4 four), each pass another FPU cycle. DEFAULT asks for
 * the plugin's own choice (its configuration); a plugin whose cores have no such knob ignores the
 * field. */
typedef enum tessera_math_fidelity {
  TESSERA_MATH_FIDELITY_DEFAULT = 0,
  TESSERA_MATH_FIDELITY_LOFI = 1,
  TESSERA_MATH_FIDELITY_HIFI2 = 2,
  TESSERA_MATH_FIDELITY_HIFI3 = 3,
  TESSERA_MATH_FIDELITY_HIFI4 = 4
} tessera_math_fidelity;

/* The work of one core for one tile. Matmul-like kinds use batch × m × k × n; the others use
 * `elements` (output elements). `flops` and bytes are filled by the host from the Einsum. The
 * host passes sizeof(tessera_tile_query) as query_size: a reader copies min(query_size, its own
 * sizeof) bytes and zeroes the rest, so a field a host did not send reads as 0 (its default). */
typedef struct tessera_tile_query {
  uint32_t op_kind; /* tessera_op_kind */
  uint32_t dtype;   /* tessera_dtype */
  uint64_t batch, m, k, n;
  uint64_t elements;
  double flops;
  double bytes_in;
  double bytes_out;
  uint32_t math_fidelity; /* since 1.5. tessera_math_fidelity; DEFAULT (0) from an older host */
} tessera_tile_query;

typedef struct tessera_transfer_query {
  uint32_t link_class; /* tessera_link_class */
  uint32_t hops;       /* router hops crossed; 0 = neighbour or direct */
  double bytes;        /* payload */
  double packet_bytes; /* bytes per packet/message, for size-dependent efficiency; 0 = bytes */
} tessera_transfer_query;

typedef struct tessera_cost_model_info {
  size_t struct_size;
  double sync_s;            /* one chip-wide barrier */
  double clock_hz;          /* clock the model counts cycles in */
  double shift_bytes_per_s; /* one core's inter-core shift rate (rotating operands) */
  /* Since 1.5. Per op, seconds a host takes to issue its command (run eagerly, op by op). */
  double dispatch_host_s;
  /* Since 1.5. Per op, seconds a replayed trace (commands recorded once, kept on the device) takes
   * to issue its command. */
  double dispatch_traced_s;
  /* Since 1.5. Per op, seconds the cores take to start its kernels once the command is there
   * (paid however the command came). */
  double launch_s;
} tessera_cost_model_info;

typedef struct tessera_cost_model tessera_cost_model;
struct tessera_cost_model {
  size_t struct_size;
  void (*release)(tessera_cost_model* self);
  tessera_status* (*get_info)(const tessera_cost_model* self, tessera_cost_model_info* out);
  /* seconds[i] = time of queries[i] on one core. `query_size` is sizeof(tessera_tile_query) as the
   * host knows it (the array stride). A tile the core cannot run gets +infinity, not an error. */
  tessera_status* (*tile_seconds)(const tessera_cost_model* self, const tessera_tile_query* queries,
                                  size_t query_size, size_t count, double* seconds);
  /* seconds[i] = time to move queries[i].bytes, size-dependent efficiency included. */
  tessera_status* (*transfer_seconds)(const tessera_cost_model* self,
                                      const tessera_transfer_query* queries, size_t query_size,
                                      size_t count, double* seconds);
  void* reserved[8];
};

/* ------------------------------------------------------------------------------------------------
 * Partitioner: the partition plans of one op on this chip. [concurrent]
 * ---------------------------------------------------------------------------------------------- */

typedef struct tessera_rank {
  const char* name; /* rank variable, e.g. "m" */
  uint64_t extent;
} tessera_rank;

typedef struct tessera_operand {
  const char* name;
  const char* indexing; /* rank expressions, comma separated: "m,k" or "n,c,p+r,q+s" */
  uint32_t dtype;       /* tessera_dtype */
  uint32_t is_output;   /* 1 for the op's output */
  uint32_t in_hbm;      /* 1 when it lives in off-chip memory (weights, KV cache) */
  uint32_t reserved0;
} tessera_operand;

/* One op, described by the host. All pointers owned by the host, valid during the call. */
typedef struct tessera_op_desc {
  size_t struct_size;
  const char* name;
  uint32_t op_kind; /* tessera_op_kind */
  uint32_t num_ranks;
  const tessera_rank* ranks;
  uint32_t num_operands;
  uint32_t reserved0;
  const tessera_operand* operands;
  double flops;
} tessera_op_desc;

/* since 1.3. One digit of a plan's placement (tessera_partition_plan::core_digits). */
typedef struct tessera_core_digit {
  uint32_t rank;        /* < the op's num_ranks */
  uint32_t count;       /* >= 1 */
  uint64_t core_stride; /* Topology core index per step of this digit */
} tessera_core_digit;

typedef struct tessera_partition_plan {
  size_t struct_size;
  const char* label; /* human-readable, e.g. "m/8 n/184 rotate B"; copied by the sink */
  uint32_t cores_used;
  uint32_t num_ranks;              /* = op num_ranks */
  const uint64_t* tile_extents;    /* per rank, the extent one core works on; copied by the sink */
  uint64_t exec_bytes_per_core;    /* SRAM the execution state needs on each used core */
  uint64_t preload_bytes_per_core; /* SRAM the preloaded (HBM) data needs while waiting */
  double inter_core_bytes;         /* total bytes moved between cores while executing */
  double hbm_bytes;                /* total bytes read from off-chip memory for this op */
  double compute_s;                /* per-core compute time (slowest core) */
  double shift_s;                  /* inter-core traffic while executing */
  double distribute_s;             /* turn preloaded layout into the execution layout */
  double sync_s;
  /* since 1.3. Where the tiles sit, as digits of a mixed radix: digit i counts `count` blocks of
   * rank `rank`, and a tile's Topology core index is the sum of its digits times their
   * `core_stride`. A rank's block index (its tile along the rank) counts in mixed radix over that
   * rank's digits, the first listed the fastest; every rank's counts multiply to the cores it is
   * split over, and all counts to cores_used; distinct tiles sit on distinct cores. Copied by the
   * sink. 0 / NULL: the plan does not say; the host then places it on the first cores_used cores
   * and keeps shift_s and distribute_s as given. With them the host prices the plan's transfers
   * on the routes itself: the copies of its HBM operands as the preload carries them from the
   * memory controllers, the partial results merged up a binary tree per output tile. */
  uint32_t num_core_digits;
  const struct tessera_core_digit* core_digits;
} tessera_partition_plan;

/* Host-provided collector. `add` copies the plan; returns non-zero to ask the plugin to stop. */
typedef struct tessera_plan_sink {
  void* context;
  int (*add)(void* context, const tessera_partition_plan* plan);
} tessera_plan_sink;

typedef struct tessera_partitioner tessera_partitioner;
struct tessera_partitioner {
  size_t struct_size;
  void (*release)(tessera_partitioner* self);
  /* Every plan worth considering for `op` (the host builds Pareto curves from them). Returns
   * UNIMPLEMENTED for op kinds left to the framework's default partitioner. */
  tessera_status* (*plans)(const tessera_partitioner* self, const tessera_op_desc* op,
                           tessera_plan_sink* sink);
  void* reserved[8];
};

/* ------------------------------------------------------------------------------------------------
 * LayoutMapper: where each element of a tensor lives, and back. [concurrent]
 * ---------------------------------------------------------------------------------------------- */

/* Opaque parsed layout, owned by the mapper that parsed it; freed with release_layout. */
typedef struct tessera_layout tessera_layout;

typedef struct tessera_location {
  uint32_t num_levels;
  uint32_t core;                       /* flat index of the block at the memory level */
  uint32_t blocks[TESSERA_MAX_LEVELS]; /* block index per level, top down */
  uint64_t address;                    /* element address inside that block's memory */
} tessera_location;

typedef struct tessera_layout_mapper tessera_layout_mapper;
struct tessera_layout_mapper {
  size_t struct_size;
  void (*release)(tessera_layout_mapper* self);
  /* Parse `text` for a tensor of `shape[rank]` elements. A malformed text returns INVALID_ARGUMENT
   * whose message starts with "column N:" (1-based). */
  tessera_status* (*parse)(const tessera_layout_mapper* self, const char* text,
                           const uint64_t* shape, uint32_t rank, tessera_layout** out);
  void (*release_layout)(const tessera_layout_mapper* self, tessera_layout* layout);
  /* Canonical text into buffer[capacity] (NUL-terminated); *length = strlen. OUT_OF_RANGE if small.
   */
  tessera_status* (*format)(const tessera_layout_mapper* self, const tessera_layout* layout,
                            char* buffer, size_t capacity, size_t* length);
  /* For count indices (row-major, `rank` values each) the locations. */
  tessera_status* (*locate)(const tessera_layout_mapper* self, const tessera_layout* layout,
                            const uint64_t* indices, size_t count, tessera_location* out);
  tessera_status* (*inverse)(const tessera_layout_mapper* self, const tessera_layout* layout,
                             const tessera_location* locations, size_t count, uint64_t* indices);
  void* reserved[8];
};

/* ------------------------------------------------------------------------------------------------
 * CodeGen: the program text for a plan. Not concurrent.
 * ---------------------------------------------------------------------------------------------- */

typedef enum tessera_instruction_kind {
  TESSERA_INSTR_PRELOAD_ASYNC = 0, /* memory controllers send op's preload data; sets its tag */
  TESSERA_INSTR_EXECUTE = 1,       /* wait tag, distribute_data, local_execute, reductions */
  TESSERA_INSTR_WAIT = 2,          /* wait for the tag of op `op` */
  TESSERA_INSTR_DISTRIBUTE = 3,
  TESSERA_INSTR_LOCAL_EXECUTE = 4,
  TESSERA_INSTR_SYNC = 5
} tessera_instruction_kind;

typedef struct tessera_instruction {
  uint32_t kind; /* tessera_instruction_kind */
  uint32_t op;   /* index into the program's ops */
} tessera_instruction;

typedef struct tessera_program {
  size_t struct_size;
  const char* name;
  size_t num_ops;
  const tessera_op_desc* ops;
  const tessera_partition_plan* exec_plans;    /* per op */
  const tessera_partition_plan* preload_plans; /* per op */
  size_t num_instructions;
  const tessera_instruction* instructions;
} tessera_program;

/* Host-provided: receives one generated file; the host writes it (atomically, never clobbering
 * without the user's consent). `relative_path` uses '/' and no "..". Returns non-zero to stop. */
typedef struct tessera_file_sink {
  void* context;
  int (*write)(void* context, const char* relative_path, const void* bytes, size_t size);
} tessera_file_sink;

typedef struct tessera_codegen tessera_codegen;
struct tessera_codegen {
  size_t struct_size;
  void (*release)(tessera_codegen* self);
  tessera_status* (*emit)(tessera_codegen* self, const tessera_program* program,
                          tessera_file_sink* sink);
  void* reserved[8];
};

/* ------------------------------------------------------------------------------------------------
 * MemoryModel: off-chip memory timing, driven by the host clock by clock. Not concurrent.
 * Cycles are in the memory's own clock (`clock_hz` of its info). One object models the whole
 * memory system (all its channels); since 1.1 it also tells which channel serves an address and
 * what each channel counted. A 1.0 object's struct_size ends before channel_of, and the host then
 * calls neither 1.1 method (rules 3, 4). Since 1.4 it can run a host's request front end itself
 * (offer); a host drives an older object with submit and advance alone.
 * ---------------------------------------------------------------------------------------------- */

typedef struct tessera_memory_info {
  size_t struct_size;
  double clock_hz;
  double peak_bytes_per_s; /* all channels */
  uint32_t channels;
  uint32_t burst_bytes; /* bytes of one request */
  uint64_t capacity_bytes;
  /* since 1.1. One line (UTF-8, no newline) naming what is simulated, for reports, e.g. "HBM, 8
   * channels of 128 bits, 64 B requests, 1 rank x 16 banks, tCK 1 ns". Owned by the model, valid
   * and unchanged until it is released. NULL = the model does not describe itself. */
  const char* description;
  /* since 1.1. Where the model's configuration came from, as the model resolved it: a file path
   * (e.g. the `.ini` that a `config` parameter named) or a name such as "built-in hbm3e_8hi.ini".
   * UTF-8, owned by the model, valid and unchanged until it is released. NULL = nothing to say. */
  const char* source;
} tessera_memory_info;

typedef struct tessera_memory_request {
  uint64_t id;      /* chosen by the host, echoed in the completion */
  uint64_t address; /* byte address */
  uint32_t is_write;
  uint32_t reserved0;
} tessera_memory_request;

typedef struct tessera_memory_completion {
  uint64_t id;
  uint64_t issue_cycle;
  uint64_t done_cycle;
} tessera_memory_completion;

typedef struct tessera_memory_stats {
  size_t struct_size;
  uint64_t cycles;
  uint64_t reads, writes;
  uint64_t row_hits, row_misses;
  uint64_t activates, refreshes;
  double bytes_per_s; /* achieved over `cycles` */
  double avg_read_latency_cycles;
  double energy_j;
} tessera_memory_stats;

typedef struct tessera_completion_sink {
  void* context;
  void (*complete)(void* context, const tessera_memory_completion* done);
} tessera_completion_sink;

typedef struct tessera_memory_model tessera_memory_model;
struct tessera_memory_model {
  size_t struct_size;
  void (*release)(tessera_memory_model* self);
  tessera_status* (*get_info)(const tessera_memory_model* self, tessera_memory_info* out);
  /* Offer `count` requests at the current cycle; *accepted (a prefix) were queued, the rest must be
   * offered again later (queues full). */
  tessera_status* (*submit)(tessera_memory_model* self, const tessera_memory_request* requests,
                            size_t count, size_t* accepted);
  /* Run `cycles` cycles, reporting each finished request to `sink`. */
  tessera_status* (*advance)(tessera_memory_model* self, uint64_t cycles,
                             tessera_completion_sink* sink);
  tessera_status* (*get_stats)(const tessera_memory_model* self, tessera_memory_stats* out);
  /* Sustained bandwidth and mean latency of long sequential streams (`streams` interleaved), for
   * the simulator's fast mode. */
  tessera_status* (*sustained)(tessera_memory_model* self, uint32_t streams, double* bytes_per_s,
                               double* latency_s);
  void* reserved[8];
  /* since 1.1. `*channel` receives the channel (0 .. channels-1 of get_info) that serves the
   * request at byte `address`, as submit would route it (addresses wrap at capacity_bytes as they
   * do in submit). Deterministic; changes no state. INVALID_ARGUMENT for an address this object
   * does not model (one that submit would refuse). Not concurrent, like every method here. */
  tessera_status* (*channel_of)(const tessera_memory_model* self, uint64_t address,
                                uint32_t* channel);
  /* since 1.1. The statistics of channel `channel` (< channels) alone, from creation up to the
   * current cycle, in get_stats' units. get_stats is their sum: reads, writes, row hits and misses,
   * activates, refreshes, bytes_per_s and energy_j add up over the channels, cycles is the same for
   * every channel, and avg_read_latency_cycles is the channels' mean weighted by their reads
   * (equal up to rounding of the doubles). `out->struct_size` as in get_stats. INVALID_ARGUMENT
   * for channel >= channels. Not concurrent. */
  tessera_status* (*get_channel_stats)(const tessera_memory_model* self, uint32_t channel,
                                       tessera_memory_stats* out);
  /* since 1.4. Offers requests[0 .. count) in order, running the model in between, exactly as this
   * sequence of submit (one request each) and advance would; completions go to `sink` as advance
   * reports them. Cycles count from the current one (0 = now). Request i is first offered at cycle
   *   t_i = max(offer_cycles[i], t_(i-1) + spacing),  t_0 = offer_cycles[0],
   * where t_(i-1) is the cycle request i-1 was accepted at: the model advances to t_i, then is
   * offered request i alone; while it refuses, it advances one cycle and is offered it again. No
   * offer is made after cycle `last_cycle`. The call returns once every request is accepted, or
   * when the next offer would come after last_cycle, leaving the model at the cycle of its last
   * offer (it never runs past it): *accepted receives how many requests were queued (a prefix of
   * them), *cycles_run how many cycles the model ran. Unless `channels` is NULL, channels[i]
   * receives, for each accepted request, the channel that serves it (as channel_of would say).
   * spacing 0 offers requests that are due at the same cycle together (an in-order front end);
   * spacing 1 at most one per cycle (DRAMsim3's trace-driven CPU, with offer_cycles one after each
   * request's cycle: the memory runs a cycle, then the CPU offers). INVALID_ARGUMENT as submit for
   * an address the model does not serve; on any error *accepted and *cycles_run say how far the
   * call got (those requests stay queued, those cycles run). Not concurrent. */
  tessera_status* (*offer)(tessera_memory_model* self, const tessera_memory_request* requests,
                           const uint64_t* offer_cycles, size_t count, uint64_t spacing,
                           uint64_t last_cycle, tessera_completion_sink* sink, uint32_t* channels,
                           size_t* accepted, uint64_t* cycles_run);
};

/* ------------------------------------------------------------------------------------------------
 * The descriptor and the entry point
 * ---------------------------------------------------------------------------------------------- */

/* Constructors: build an object from `params`. On success *out holds a new object the caller
 * releases with its `release`; on failure *out is untouched and the status says which parameter is
 * wrong. [concurrent] */
typedef tessera_status* (*tessera_create_topology_fn)(const tessera_params*, tessera_topology**);
typedef tessera_status* (*tessera_create_cost_model_fn)(const tessera_params*,
                                                        tessera_cost_model**);
typedef tessera_status* (*tessera_create_partitioner_fn)(const tessera_params*,
                                                         tessera_partitioner**);
typedef tessera_status* (*tessera_create_layout_mapper_fn)(const tessera_params*,
                                                           tessera_layout_mapper**);
typedef tessera_status* (*tessera_create_codegen_fn)(const tessera_params*, tessera_codegen**);
typedef tessera_status* (*tessera_create_memory_model_fn)(const tessera_params*,
                                                          tessera_memory_model**);

/* Static data of the plugin: owned by the plugin, valid until the library is unloaded. */
typedef struct tessera_plugin_descriptor {
  size_t struct_size;
  uint32_t abi_major; /* the version the plugin was built for */
  uint32_t abi_minor;
  const char* name;        /* equals the manifest's name, [a-z0-9_]+ */
  const char* version;     /* the plugin's own version, "MAJOR.MINOR.PATCH" */
  const char* description; /* one line */
  void* reserved[8];       /* zero */
  /* NULL = not provided. */
  tessera_create_topology_fn create_topology;
  tessera_create_cost_model_fn create_cost_model;
  tessera_create_partitioner_fn create_partitioner;
  tessera_create_layout_mapper_fn create_layout_mapper;
  tessera_create_codegen_fn create_codegen;
  tessera_create_memory_model_fn create_memory_model;
} tessera_plugin_descriptor;

/* The entry point. Returns the descriptor when the plugin can serve `abi_major` (same major, any
 * minor: the host reads only what the reported minor has), NULL otherwise. `host` stays valid
 * until the library is unloaded; the plugin keeps the pointer to make statuses and log. */
typedef const tessera_plugin_descriptor* (*tessera_plugin_query_fn)(uint32_t abi_major,
                                                                    uint32_t abi_minor,
                                                                    const tessera_host_api* host);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_PLUGIN_ABI_H */
