//===- FastCall.cpp - the launch fast path's per-call work in C -----------===//
//
// tcc.runtime._fastcall.
//
// tcc.runtime.fastpath builds one LaunchPlan per call signature in Python;
// this module runs a built plan without the interpreter: it matches a call
// against the plans it holds (per value: its exact type, and for a tensor its
// shape, dtype and device), checks what the signature does not fix (null,
// 16-byte aligned, contiguous; scalar ranges; outputs passed in that overlap
// another array), writes the pointer and scalar fields of each launch's
// parameter block, and calls the driver's launch entry point
// (cuLaunchKernel or hipModuleLaunchKernel, which share one C signature)
// through its address. What a plan cannot decide alone it asks Python for,
// through callables the plan was built with: output allocation, the current
// stream, intermediate buffers (per stream), grids that read a scalar
// argument, TMA tensor maps (when an operand's pointer changes), the launch
// error. A call no plan matches goes to `miss`; a call a plan refuses goes to
// `general`, whose validation names the problem.
//
// Pure CPython C API: no MLIR, no CUDA headers, so it imports wherever
// tcc.runtime does (the runtime stays MLIR-free).

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using LaunchFn = int (*)(void *function, unsigned gx, unsigned gy, unsigned gz,
                         unsigned bx, unsigned by, unsigned bz, unsigned shared,
                         void *stream, void **params, void **extra);

constexpr Py_ssize_t kMaxValues = 64;
constexpr std::size_t kMaxPlans = 16;
constexpr uint64_t kPointerAlign = 16;

// Scalar field codes (tcc.runtime.fastpath._SCALAR_CODES mirrors them).
enum ScalarCode { kI1 = 0, kI8, kI16, kI32, kI64, kF32, kF64, kHalf };

PyObject *str_dtype, *str_shape, *str_get_device, *str_data_ptr,
    *str_is_contiguous, *str_view;

struct Slot {
  PyTypeObject *type;
  int full;
  bool tensor;
  PyObject *dtype; // borrowed (the plan's spec keeps it alive)
  long device;
  std::vector<long long> shape;
};

struct Alloc {
  int full;
  int like;       // full index of an input to allocate like, or -1
  PyObject *make; // make(like) or make()
};

struct Field {
  void *addr;
  int src;
  int code;
  PyObject *conv; // half scalars: conv(value) -> bits
};

struct TensorMap {
  void *addr;
  int src;
  PyObject *make; // make(pointer) -> 128 bytes
  bool valid = false;
  uint64_t last = 0;   // the pointer `cached` is the map of
  uint8_t cached[128]; // (the Python path may write the field too)
};

struct Step {
  void *function;
  unsigned grid[3];
  PyObject *grid_fn; // grid_fn(full) -> (gx, gy, gz), or None: grid fixed
  unsigned block[3];
  unsigned shared;
  void **params;
  std::vector<Field> pointers, scalars;
  std::vector<TensorMap> maps;
};

struct Result {
  int full;
  PyObject *shape; // a view of this shape, or None
};

struct Plan {
  PyObject *spec; // owned: keeps every borrowed object below alive
  Py_ssize_t given;
  bool out_none;
  int n_full;
  bool caller_outputs;
  std::vector<Slot> slots;
  std::vector<int> arrays, outputs;
  std::vector<int> overlapping; // arrays then outputs: what outputs may overlap
  std::vector<uint64_t> nbytes;
  std::vector<std::pair<int, int>> scalars; // (full index, code)
  std::vector<Alloc> allocs;
  Py_ssize_t n_buffers;
  PyObject *scratch_fn, *stream_fn, *activate, *check;
  long device;
  LaunchFn launch;
  std::vector<Step> steps;
  std::vector<Result> results;
  bool has_scratch = false;
  uint64_t scratch_stream = 0;
  std::vector<uint64_t> scratch;
};

struct Dispatcher {
  PyObject_HEAD
  PyObject *miss, *general;
  std::vector<Plan *> *plans;
  unsigned long long hits, misses, refusals;
};

// Per call value: what a tensor's match read, fetched once for all plans.
struct Seen {
  bool fetched = false;
  PyObject *dtype = nullptr, *shape = nullptr;
  long device = -1;
  void clear() {
    Py_CLEAR(dtype);
    Py_CLEAR(shape);
  }
};

bool as_uint(PyObject *o, unsigned *out) {
  unsigned long v = PyLong_AsUnsignedLong(o);
  if (v == (unsigned long)-1 && PyErr_Occurred())
    return false;
  if (v > 0xFFFFFFFFul) {
    PyErr_SetString(PyExc_OverflowError, "launch dimension out of range");
    return false;
  }
  *out = (unsigned)v;
  return true;
}

bool as_u64(PyObject *o, uint64_t *out) {
  unsigned long long v = PyLong_AsUnsignedLongLong(o);
  if (v == (unsigned long long)-1 && PyErr_Occurred())
    return false;
  *out = v;
  return true;
}

bool uint3(PyObject *tuple, unsigned out[3]) {
  if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 3) {
    PyErr_SetString(PyExc_TypeError, "expected a tuple of 3 ints");
    return false;
  }
  for (int i = 0; i < 3; ++i)
    if (!as_uint(PyTuple_GET_ITEM(tuple, i), &out[i]))
      return false;
  return true;
}

bool int_tuple(PyObject *tuple, std::vector<int> *out) {
  if (!PyTuple_Check(tuple)) {
    PyErr_SetString(PyExc_TypeError, "expected a tuple of ints");
    return false;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); ++i) {
    long v = PyLong_AsLong(PyTuple_GET_ITEM(tuple, i));
    if (v == -1 && PyErr_Occurred())
      return false;
    out->push_back((int)v);
  }
  return true;
}

PyObject *none_to_null(PyObject *o) { return o == Py_None ? nullptr : o; }

// Plan spec, as tcc.runtime.fastpath.LaunchPlan.native() builds it:
// (given, out_none, n_full, caller_outputs, slots, arrays, outputs, nbytes,
//  scalars, allocs, n_buffers, scratch_fn, stream_fn, device, activate,
//  launch_address, check, steps, results, owner); `owner` (the LaunchPlan)
// owns the parameter blocks the steps' addresses point into.
Plan *parse_plan(PyObject *spec) {
  auto *plan = new Plan();
  plan->spec = spec;
  Py_INCREF(spec);
  PyObject *slots, *arrays, *outputs, *nbytes, *scalars, *allocs, *scratch_fn,
      *stream_fn, *activate, *check, *steps, *results, *owner;
  int out_none, caller_outputs;
  unsigned long long launch;
  if (!PyArg_ParseTuple(spec, "npipOOOOOOnOOlOKOOOO;plan spec", &plan->given,
                        &out_none, &plan->n_full, &caller_outputs, &slots,
                        &arrays, &outputs, &nbytes, &scalars, &allocs,
                        &plan->n_buffers, &scratch_fn, &stream_fn,
                        &plan->device, &activate, &launch, &check, &steps,
                        &results, &owner))
    goto fail;
  plan->out_none = out_none;
  plan->caller_outputs = caller_outputs;
  plan->scratch_fn = none_to_null(scratch_fn);
  plan->stream_fn = none_to_null(stream_fn);
  plan->activate = none_to_null(activate);
  plan->check = check;
  plan->launch = reinterpret_cast<LaunchFn>(static_cast<uintptr_t>(launch));
  if (!plan->launch) {
    PyErr_SetString(PyExc_ValueError, "null launch entry point");
    goto fail;
  }
  if (!PyTuple_Check(slots) || !PyTuple_Check(nbytes) ||
      !PyTuple_Check(scalars) || !PyTuple_Check(allocs) ||
      !PyTuple_Check(steps) || !PyTuple_Check(results)) {
    PyErr_SetString(PyExc_TypeError, "plan spec: expected tuples");
    goto fail;
  }
  if (PyTuple_GET_SIZE(slots) > kMaxValues ||
      PyTuple_GET_SIZE(nbytes) != plan->n_full) {
    PyErr_SetString(PyExc_ValueError, "plan spec: bad value counts");
    goto fail;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(slots); ++i) {
    Slot slot;
    PyObject *type, *dtype, *shape;
    int tensor;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(slots, i), "OipOlO;slot", &type,
                          &slot.full, &tensor, &dtype, &slot.device, &shape))
      goto fail;
    if (!PyType_Check(type) || slot.full < 0 || slot.full >= plan->n_full) {
      PyErr_SetString(PyExc_ValueError, "plan spec: bad slot");
      goto fail;
    }
    slot.type = reinterpret_cast<PyTypeObject *>(type);
    slot.tensor = tensor;
    slot.dtype = dtype;
    if (tensor) {
      if (!PyTuple_Check(shape)) {
        PyErr_SetString(PyExc_TypeError, "plan spec: slot shape");
        goto fail;
      }
      for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(shape); ++d) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
        if (v == -1 && PyErr_Occurred())
          goto fail;
        slot.shape.push_back(v);
      }
    }
    plan->slots.push_back(std::move(slot));
  }
  if (!int_tuple(arrays, &plan->arrays) || !int_tuple(outputs, &plan->outputs))
    goto fail;
  for (Py_ssize_t i = 0; i < plan->n_full; ++i) {
    uint64_t n;
    if (!as_u64(PyTuple_GET_ITEM(nbytes, i), &n))
      goto fail;
    plan->nbytes.push_back(n);
  }
  for (int i : plan->arrays)
    if (i < 0 || i >= plan->n_full)
      goto bad_index;
  for (int i : plan->outputs)
    if (i < 0 || i >= plan->n_full)
      goto bad_index;
  plan->overlapping = plan->arrays;
  plan->overlapping.insert(plan->overlapping.end(), plan->outputs.begin(),
                           plan->outputs.end());
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(scalars); ++i) {
    int full, code;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(scalars, i), "ii;scalar", &full,
                          &code))
      goto fail;
    if (full < 0 || full >= plan->n_full)
      goto bad_index;
    plan->scalars.emplace_back(full, code);
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(allocs); ++i) {
    Alloc a;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(allocs, i), "iiO;alloc", &a.full,
                          &a.like, &a.make))
      goto fail;
    if (a.full < 0 || a.full >= plan->n_full || a.like >= plan->n_full)
      goto bad_index;
    plan->allocs.push_back(a);
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(steps); ++i) {
    Step step;
    PyObject *grid, *grid_fn, *block, *pointers, *fields, *maps;
    unsigned long long function, params;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(steps, i), "KOOOIKOOO;step",
                          &function, &grid, &grid_fn, &block, &step.shared,
                          &params, &pointers, &fields, &maps))
      goto fail;
    step.function = reinterpret_cast<void *>(static_cast<uintptr_t>(function));
    step.params = reinterpret_cast<void **>(static_cast<uintptr_t>(params));
    step.grid_fn = none_to_null(grid_fn);
    if (!step.grid_fn && !uint3(grid, step.grid))
      goto fail;
    if (!uint3(block, step.block))
      goto fail;
    if (!PyTuple_Check(pointers) || !PyTuple_Check(fields) ||
        !PyTuple_Check(maps)) {
      PyErr_SetString(PyExc_TypeError, "plan spec: step fields");
      goto fail;
    }
    Py_ssize_t sources = plan->n_full + plan->n_buffers;
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(pointers); ++j) {
      Field f{};
      unsigned long long addr;
      if (!PyArg_ParseTuple(PyTuple_GET_ITEM(pointers, j), "Ki;pointer field",
                            &addr, &f.src))
        goto fail;
      if (f.src < 0 || f.src >= sources)
        goto bad_index;
      f.addr = reinterpret_cast<void *>(static_cast<uintptr_t>(addr));
      step.pointers.push_back(f);
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(fields); ++j) {
      Field f{};
      unsigned long long addr;
      PyObject *conv;
      if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fields, j), "KiiO;scalar field",
                            &addr, &f.src, &f.code, &conv))
        goto fail;
      if (f.src < 0 || f.src >= plan->n_full)
        goto bad_index;
      f.addr = reinterpret_cast<void *>(static_cast<uintptr_t>(addr));
      f.conv = none_to_null(conv);
      if (f.code < kI1 || f.code > kHalf || (f.code == kHalf && !f.conv)) {
        PyErr_SetString(PyExc_ValueError, "plan spec: bad scalar code");
        goto fail;
      }
      step.scalars.push_back(f);
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(maps); ++j) {
      TensorMap m;
      unsigned long long addr;
      if (!PyArg_ParseTuple(PyTuple_GET_ITEM(maps, j), "KiO;tensor map", &addr,
                            &m.src, &m.make))
        goto fail;
      if (m.src < 0 || m.src >= plan->n_full)
        goto bad_index;
      m.addr = reinterpret_cast<void *>(static_cast<uintptr_t>(addr));
      step.maps.push_back(m);
    }
    plan->steps.push_back(std::move(step));
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(results); ++i) {
    Result r;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(results, i), "iO;result", &r.full,
                          &r.shape))
      goto fail;
    if (r.full < 0 || r.full >= plan->n_full)
      goto bad_index;
    plan->results.push_back(r);
  }
  if (plan->results.empty()) {
    PyErr_SetString(PyExc_ValueError, "plan spec: no results");
    goto fail;
  }
  return plan;
bad_index:
  PyErr_SetString(PyExc_ValueError, "plan spec: index out of range");
fail:
  Py_DECREF(plan->spec);
  delete plan;
  return nullptr;
}

void free_plan(Plan *plan) {
  Py_DECREF(plan->spec);
  delete plan;
}

// 1: `v`'s shape, dtype and device are `slot`'s; 0: they are not; -1: error.
int tensor_matches(PyObject *v, Seen *seen, const Slot &slot) {
  if (!seen->fetched) {
    seen->fetched = true;
    seen->dtype = PyObject_GetAttr(v, str_dtype);
    if (!seen->dtype)
      return -1;
    seen->shape = PyObject_GetAttr(v, str_shape);
    if (!seen->shape)
      return -1;
    PyObject *dev = PyObject_CallMethodNoArgs(v, str_get_device);
    if (!dev)
      return -1;
    seen->device = PyLong_AsLong(dev);
    Py_DECREF(dev);
    if (seen->device == -1 && PyErr_Occurred())
      return -1;
  }
  if (seen->dtype != slot.dtype || seen->device != slot.device)
    return 0;
  PyObject *shape = seen->shape;
  if (!PyTuple_Check(shape) ||
      PyTuple_GET_SIZE(shape) != (Py_ssize_t)slot.shape.size())
    return 0;
  for (std::size_t d = 0; d < slot.shape.size(); ++d) {
    long long n = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, (Py_ssize_t)d));
    if (n == -1 && PyErr_Occurred())
      return -1;
    if (n != slot.shape[d])
      return 0;
  }
  return 1;
}

// 1: `plan` takes these values; 0: it does not; -1: error.
int plan_matches(const Plan &plan, Py_ssize_t given, bool out_none,
                 PyObject *const *values, Py_ssize_t n, Seen *seen) {
  if (plan.given != given || plan.out_none != out_none ||
      (Py_ssize_t)plan.slots.size() != n)
    return 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Slot &slot = plan.slots[i];
    if (Py_TYPE(values[i]) != slot.type)
      return 0;
    if (slot.tensor) {
      int m = tensor_matches(values[i], &seen[i], slot);
      if (m <= 0)
        return m;
    }
  }
  return 1;
}

// The call's outcome when a plan runs it.
enum class Outcome { kDone, kRefused, kError };

// A tensor's device pointer, checked as the signature cannot: not null,
// 16-byte aligned, contiguous (`check`). kRefused: the general path decides.
Outcome pointer_of(PyObject *v, bool check, uint64_t *out) {
  PyObject *p = PyObject_CallMethodNoArgs(v, str_data_ptr);
  if (!p)
    return Outcome::kError;
  bool ok = as_u64(p, out);
  Py_DECREF(p);
  if (!ok)
    return Outcome::kError;
  if (!check)
    return Outcome::kDone;
  if (!*out || *out % kPointerAlign)
    return Outcome::kRefused;
  PyObject *c = PyObject_CallMethodNoArgs(v, str_is_contiguous);
  if (!c)
    return Outcome::kError;
  int contiguous = PyObject_IsTrue(c);
  Py_DECREF(c);
  if (contiguous < 0)
    return Outcome::kError;
  return contiguous ? Outcome::kDone : Outcome::kRefused;
}

// A scalar's value as its field's bits; kRefused when it does not fit.
Outcome scalar_bits(PyObject *v, int code, PyObject *conv, uint64_t *bits) {
  bool is_bool = PyBool_Check(v);
  bool is_int = PyLong_Check(v) && !is_bool;
  switch (code) {
  case kI1:
    if (!PyLong_Check(v))
      return Outcome::kRefused;
    *bits = PyObject_IsTrue(v) ? 1 : 0;
    return Outcome::kDone;
  case kI8:
  case kI16:
  case kI32:
  case kI64: {
    if (!is_int)
      return Outcome::kRefused;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow)
      return Outcome::kRefused;
    if (x == -1 && PyErr_Occurred())
      return Outcome::kError;
    int width = code == kI8 ? 8 : code == kI16 ? 16 : code == kI32 ? 32 : 64;
    if (width < 64) {
      long long lim = 1LL << (width - 1);
      if (x < -lim || x >= lim)
        return Outcome::kRefused;
    }
    *bits = static_cast<uint64_t>(x);
    return Outcome::kDone;
  }
  case kF32:
  case kF64:
  case kHalf: {
    if (!(is_int || PyFloat_Check(v)))
      return Outcome::kRefused;
    if (code == kHalf) {
      PyObject *b = PyObject_CallOneArg(conv, v);
      if (!b)
        return Outcome::kError;
      bool ok = as_u64(b, bits);
      Py_DECREF(b);
      return ok ? Outcome::kDone : Outcome::kError;
    }
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_OverflowError))
        return Outcome::kError;
      PyErr_Clear();
      return Outcome::kRefused;
    }
    if (code == kF32) {
      float f = static_cast<float>(x);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      *bits = u;
    } else {
      std::memcpy(bits, &x, 8);
    }
    return Outcome::kDone;
  }
  default:
    PyErr_SetString(PyExc_SystemError, "bad scalar code");
    return Outcome::kError;
  }
}

void write_field(const Field &f, uint64_t bits) {
  switch (f.code) {
  case kI1:
  case kI8:
    *static_cast<uint8_t *>(f.addr) = static_cast<uint8_t>(bits);
    break;
  case kI16:
  case kHalf:
    *static_cast<uint16_t *>(f.addr) = static_cast<uint16_t>(bits);
    break;
  case kI32:
  case kF32:
    *static_cast<uint32_t *>(f.addr) = static_cast<uint32_t>(bits);
    break;
  default:
    *static_cast<uint64_t *>(f.addr) = bits;
  }
}

/// fn(arg), taking `arg`'s reference (null: its creation failed).
PyObject *call_with(PyObject *fn, PyObject *arg) {
  if (!arg)
    return nullptr;
  PyObject *result = PyObject_CallOneArg(fn, arg);
  Py_DECREF(arg);
  return result;
}

PyObject *full_list(PyObject *const *full, int n) {
  PyObject *list = PyList_New(n);
  if (!list)
    return nullptr;
  for (int i = 0; i < n; ++i) {
    Py_INCREF(full[i]);
    PyList_SET_ITEM(list, i, full[i]);
  }
  return list;
}

// Runs `plan` on the call's values; `*result` holds the return value when
// kDone. `full` and `owned` are scratch arrays of plan.n_full entries.
Outcome run_plan(Plan &plan, PyObject *const *values, PyObject *stream_arg,
                 PyObject **full, PyObject **owned, PyObject **result) {
  int n = plan.n_full;
  for (int i = 0; i < n; ++i)
    full[i] = owned[i] = nullptr;
  for (std::size_t k = 0; k < plan.slots.size(); ++k)
    full[plan.slots[k].full] = values[k];
  for (const Alloc &a : plan.allocs) {
    PyObject *made = a.like >= 0 ? PyObject_CallOneArg(a.make, full[a.like])
                                 : PyObject_CallNoArgs(a.make);
    if (!made)
      return Outcome::kError;
    full[a.full] = owned[a.full] = made;
  }
  for (int i = 0; i < n; ++i)
    if (!full[i]) {
      PyErr_SetString(PyExc_SystemError, "plan leaves an argument unbound");
      return Outcome::kError;
    }

  uint64_t stack_ptrs[kMaxValues * 2];
  std::vector<uint64_t> heap_ptrs;
  uint64_t *ptrs = stack_ptrs;
  std::size_t n_sources = (std::size_t)n + (std::size_t)plan.n_buffers;
  if (n_sources > sizeof(stack_ptrs) / sizeof(stack_ptrs[0])) {
    heap_ptrs.resize(n_sources);
    ptrs = heap_ptrs.data();
  }
  std::memset(ptrs, 0, n_sources * sizeof(uint64_t));
  for (int i : plan.arrays) {
    Outcome o = pointer_of(full[i], true, &ptrs[i]);
    if (o != Outcome::kDone)
      return o;
  }
  for (int i : plan.outputs) {
    Outcome o = pointer_of(full[i], plan.caller_outputs, &ptrs[i]);
    if (o != Outcome::kDone)
      return o;
  }
  uint64_t scalar_values[kMaxValues * 2];
  std::vector<uint64_t> heap_scalars;
  uint64_t *svals = scalar_values;
  if ((std::size_t)n > sizeof(scalar_values) / sizeof(scalar_values[0])) {
    heap_scalars.resize(n);
    svals = heap_scalars.data();
  }
  for (auto [i, code] : plan.scalars) {
    if (code == kHalf)
      continue; // converted per field (its conv)
    Outcome o = scalar_bits(full[i], code, nullptr, &svals[i]);
    if (o != Outcome::kDone)
      return o;
  }
  if (plan.caller_outputs) {
    for (int i : plan.outputs) {
      uint64_t start = ptrs[i], end = start + plan.nbytes[i];
      if (start == end)
        continue;
      for (int j : plan.overlapping)
        if (j != i && ptrs[j] < end && start < ptrs[j] + plan.nbytes[j])
          return Outcome::kRefused;
    }
  }

  uint64_t stream = 0;
  if (stream_arg != Py_None) {
    if (!PyLong_Check(stream_arg))
      return Outcome::kRefused;
    if (!as_u64(stream_arg, &stream))
      return Outcome::kError;
  } else if (plan.stream_fn) {
    PyObject *s = call_with(plan.stream_fn, PyLong_FromLong(plan.device));
    if (!s)
      return Outcome::kError;
    bool ok = as_u64(s, &stream);
    Py_DECREF(s);
    if (!ok)
      return Outcome::kError;
  }
  if (plan.n_buffers) {
    if (!plan.has_scratch || plan.scratch_stream != stream) {
      PyObject *bufs =
          call_with(plan.scratch_fn, PyLong_FromUnsignedLongLong(stream));
      if (!bufs)
        return Outcome::kError;
      PyObject *seq = PySequence_Fast(bufs, "scratch pointers");
      Py_DECREF(bufs);
      if (!seq)
        return Outcome::kError;
      if (PySequence_Fast_GET_SIZE(seq) != plan.n_buffers) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_SystemError, "scratch: wrong buffer count");
        return Outcome::kError;
      }
      plan.scratch.assign((std::size_t)plan.n_buffers, 0);
      for (Py_ssize_t b = 0; b < plan.n_buffers; ++b)
        if (!as_u64(PySequence_Fast_GET_ITEM(seq, b), &plan.scratch[b])) {
          Py_DECREF(seq);
          return Outcome::kError;
        }
      Py_DECREF(seq);
      plan.has_scratch = true;
      plan.scratch_stream = stream;
    }
    for (Py_ssize_t b = 0; b < plan.n_buffers; ++b)
      ptrs[n + b] = plan.scratch[b];
  }
  if (plan.activate) {
    PyObject *r = PyObject_CallNoArgs(plan.activate);
    if (!r)
      return Outcome::kError;
    Py_DECREF(r);
  }

  for (Step &step : plan.steps) {
    for (const Field &f : step.pointers)
      *static_cast<uint64_t *>(f.addr) = ptrs[f.src];
    for (const Field &f : step.scalars) {
      uint64_t bits = svals[f.src];
      if (f.code == kHalf) {
        Outcome o = scalar_bits(full[f.src], kHalf, f.conv, &bits);
        if (o != Outcome::kDone)
          return o;
      }
      write_field(f, bits);
    }
    for (TensorMap &m : step.maps) {
      uint64_t p = ptrs[m.src];
      if (m.valid && p == m.last) {
        if (std::memcmp(m.addr, m.cached, 128) != 0)
          std::memcpy(m.addr, m.cached, 128);
        continue;
      }
      PyObject *raw = call_with(m.make, PyLong_FromUnsignedLongLong(p));
      if (!raw)
        return Outcome::kError;
      char *bytes;
      Py_ssize_t len;
      if (PyBytes_AsStringAndSize(raw, &bytes, &len) < 0 || len != 128) {
        Py_DECREF(raw);
        if (!PyErr_Occurred())
          PyErr_SetString(PyExc_SystemError, "a tensor map is 128 bytes");
        return Outcome::kError;
      }
      std::memcpy(m.addr, bytes, 128);
      std::memcpy(m.cached, bytes, 128);
      Py_DECREF(raw);
      m.last = p;
      m.valid = true;
    }
    unsigned grid[3] = {step.grid[0], step.grid[1], step.grid[2]};
    if (step.grid_fn) {
      PyObject *list = full_list(full, n);
      if (!list)
        return Outcome::kError;
      PyObject *g = PyObject_CallOneArg(step.grid_fn, list);
      Py_DECREF(list);
      if (!g)
        return Outcome::kError;
      bool ok = uint3(g, grid);
      Py_DECREF(g);
      if (!ok)
        return Outcome::kError;
    }
    int err = plan.launch(step.function, grid[0], grid[1], grid[2],
                          step.block[0], step.block[1], step.block[2],
                          step.shared, reinterpret_cast<void *>(stream),
                          step.params, nullptr);
    if (err) {
      Py_XDECREF(call_with(plan.check, PyLong_FromLong(err)));
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "kernel launch failed (%d)", err);
      return Outcome::kError;
    }
  }

  std::size_t n_results = plan.results.size();
  PyObject *tuple = n_results > 1 ? PyTuple_New((Py_ssize_t)n_results) : nullptr;
  if (n_results > 1 && !tuple)
    return Outcome::kError;
  for (std::size_t r = 0; r < n_results; ++r) {
    const Result &res = plan.results[r];
    PyObject *v;
    if (res.shape == Py_None) {
      v = full[res.full];
      Py_INCREF(v);
    } else {
      v = PyObject_CallMethodOneArg(full[res.full], str_view, res.shape);
      if (!v) {
        Py_XDECREF(tuple);
        return Outcome::kError;
      }
    }
    if (tuple)
      PyTuple_SET_ITEM(tuple, (Py_ssize_t)r, v);
    else
      *result = v;
  }
  if (tuple)
    *result = tuple;
  return Outcome::kDone;
}

// --- the Dispatcher type --------------------------------------------------

PyObject *dispatcher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static const char *names[] = {"miss", "general", nullptr};
  PyObject *miss, *general;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:Dispatcher",
                                   const_cast<char **>(names), &miss, &general))
    return nullptr;
  auto *self = reinterpret_cast<Dispatcher *>(type->tp_alloc(type, 0));
  if (!self)
    return nullptr;
  Py_INCREF(miss);
  Py_INCREF(general);
  self->miss = miss;
  self->general = general;
  self->plans = new std::vector<Plan *>();
  return reinterpret_cast<PyObject *>(self);
}

void clear_plans(Dispatcher *self) {
  if (!self->plans)
    return;
  for (Plan *p : *self->plans)
    free_plan(p);
  self->plans->clear();
}

void dispatcher_dealloc(PyObject *obj) {
  auto *self = reinterpret_cast<Dispatcher *>(obj);
  PyObject_GC_UnTrack(obj);
  clear_plans(self);
  delete self->plans;
  self->plans = nullptr;
  Py_CLEAR(self->miss);
  Py_CLEAR(self->general);
  PyTypeObject *type = Py_TYPE(obj);
  type->tp_free(obj);
  Py_DECREF(type); // a heap type: each instance holds a reference to it
}

int dispatcher_traverse(PyObject *obj, visitproc visit, void *arg) {
  auto *self = reinterpret_cast<Dispatcher *>(obj);
  Py_VISIT(Py_TYPE(obj)); // instances of a heap type hold their type
  Py_VISIT(self->miss);
  Py_VISIT(self->general);
  if (self->plans)
    for (Plan *p : *self->plans)
      Py_VISIT(p->spec);
  return 0;
}

int dispatcher_clear(PyObject *obj) {
  auto *self = reinterpret_cast<Dispatcher *>(obj);
  clear_plans(self);
  Py_CLEAR(self->miss);
  Py_CLEAR(self->general);
  return 0;
}

// dispatcher(args, out, stream): the call `fn(*args, out=out, stream=stream)`.
PyObject *dispatcher_call(PyObject *obj, PyObject *const *argv,
                          Py_ssize_t nargs) {
  auto *self = reinterpret_cast<Dispatcher *>(obj);
  if (nargs != 3 || !PyTuple_Check(argv[0])) {
    PyErr_SetString(PyExc_TypeError,
                    "dispatch(args: tuple, out, stream) takes 3 arguments");
    return nullptr;
  }
  PyObject *args = argv[0], *out = argv[1], *stream = argv[2];
  Py_ssize_t given = PyTuple_GET_SIZE(args);
  PyObject *values[kMaxValues];
  Py_ssize_t n = 0;
  bool fits = given <= kMaxValues;
  if (fits) {
    for (Py_ssize_t i = 0; i < given; ++i)
      values[n++] = PyTuple_GET_ITEM(args, i);
    if (out != Py_None) {
      if (PyTuple_Check(out) || PyList_Check(out)) {
        Py_ssize_t k = PySequence_Fast_GET_SIZE(out);
        if (n + k > kMaxValues)
          fits = false;
        else
          for (Py_ssize_t i = 0; i < k; ++i)
            values[n++] = PySequence_Fast_GET_ITEM(out, i);
      } else if (n < kMaxValues) {
        values[n++] = out;
      } else {
        fits = false;
      }
    }
  }
  if (fits && !self->plans->empty()) {
    Seen seen[kMaxValues];
    Plan *chosen = nullptr;
    for (auto it = self->plans->rbegin(); it != self->plans->rend(); ++it) {
      int m = plan_matches(**it, given, out == Py_None, values, n, seen);
      if (m < 0) {
        for (Py_ssize_t i = 0; i < n; ++i)
          seen[i].clear();
        return nullptr;
      }
      if (m) {
        chosen = *it;
        break;
      }
    }
    for (Py_ssize_t i = 0; i < n; ++i)
      seen[i].clear();
    if (chosen) {
      PyObject *full[kMaxValues * 2], *owned[kMaxValues * 2];
      std::vector<PyObject *> heap_full, heap_owned;
      PyObject **fp = full, **op = owned;
      if (chosen->n_full > kMaxValues * 2) {
        heap_full.resize(chosen->n_full);
        heap_owned.resize(chosen->n_full);
        fp = heap_full.data();
        op = heap_owned.data();
      }
      PyObject *result = nullptr;
      Outcome o = run_plan(*chosen, values, stream, fp, op, &result);
      for (int i = 0; i < chosen->n_full; ++i)
        Py_XDECREF(op[i]);
      if (o == Outcome::kDone) {
        ++self->hits;
        return result;
      }
      if (o == Outcome::kError)
        return nullptr;
      ++self->refusals;
      return PyObject_CallFunctionObjArgs(self->general, args, out, stream,
                                          nullptr);
    }
  }
  ++self->misses;
  return PyObject_CallFunctionObjArgs(self->miss, args, out, stream, nullptr);
}

PyObject *dispatcher_add(PyObject *obj, PyObject *spec) {
  auto *self = reinterpret_cast<Dispatcher *>(obj);
  if (!PyTuple_Check(spec)) {
    PyErr_SetString(PyExc_TypeError, "add(spec): spec must be a tuple");
    return nullptr;
  }
  Plan *plan = parse_plan(spec);
  if (!plan)
    return nullptr;
  if (self->plans->size() >= kMaxPlans) { // the oldest goes
    free_plan(self->plans->front());
    self->plans->erase(self->plans->begin());
  }
  self->plans->push_back(plan);
  Py_RETURN_NONE;
}

PyObject *dispatcher_clear_plans(PyObject *obj, PyObject *) {
  clear_plans(reinterpret_cast<Dispatcher *>(obj));
  Py_RETURN_NONE;
}

PyObject *dispatcher_stats(PyObject *obj, PyObject *) {
  auto *self = reinterpret_cast<Dispatcher *>(obj);
  return Py_BuildValue("{sKsKsKsn}", "hits", self->hits, "misses",
                       self->misses, "refusals", self->refusals, "plans",
                       (Py_ssize_t)self->plans->size());
}

PyMethodDef dispatcher_methods[] = {
    {"dispatch", reinterpret_cast<PyCFunction>(
                     reinterpret_cast<void (*)()>(dispatcher_call)),
     METH_FASTCALL,
     "dispatch(args, out, stream): run the call through a matching plan"},
    {"add", dispatcher_add, METH_O,
     "add(spec): hold one more plan (the oldest goes past 16)"},
    {"clear", dispatcher_clear_plans, METH_NOARGS, "drop every plan"},
    {"stats", dispatcher_stats, METH_NOARGS,
     "{'hits', 'misses', 'refusals', 'plans'}: calls run, passed to miss, "
     "passed to general; plans held"},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot dispatcher_slots[] = {
    {Py_tp_doc, const_cast<char *>(
                    "Dispatcher(miss, general): runs calls through the plans "
                    "added to it")},
    {Py_tp_new, reinterpret_cast<void *>(dispatcher_new)},
    {Py_tp_dealloc, reinterpret_cast<void *>(dispatcher_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(dispatcher_traverse)},
    {Py_tp_clear, reinterpret_cast<void *>(dispatcher_clear)},
    {Py_tp_methods, dispatcher_methods},
    {0, nullptr}};

PyType_Spec dispatcher_spec = {
    "tcc.runtime._fastcall.Dispatcher", sizeof(Dispatcher), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, dispatcher_slots};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_fastcall",
                          "The launch fast path's per-call work in C.", -1,
                          nullptr, nullptr, nullptr, nullptr, nullptr};

} // namespace

PyMODINIT_FUNC PyInit__fastcall(void) {
  str_dtype = PyUnicode_InternFromString("dtype");
  str_shape = PyUnicode_InternFromString("shape");
  str_get_device = PyUnicode_InternFromString("get_device");
  str_data_ptr = PyUnicode_InternFromString("data_ptr");
  str_is_contiguous = PyUnicode_InternFromString("is_contiguous");
  str_view = PyUnicode_InternFromString("view");
  if (!str_dtype || !str_shape || !str_get_device || !str_data_ptr ||
      !str_is_contiguous || !str_view)
    return nullptr;
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return nullptr;
  PyObject *type = PyType_FromSpec(&dispatcher_spec);
  if (!type || PyModule_AddObject(m, "Dispatcher", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
