package io.fanout.nn;

import io.fanout.tensor.IntTensor;

/**
 * A {@link Block} uploaded to a backend: its CSR offsets ({@code numDst + 1}) and neighbor indices
 * as tensors, from element 0, with the sizes ({@code edges}: the indices in use) kept on the host.
 */
record DeviceBlock(IntTensor indptr, IntTensor indices, int numDst, int numSrc, int edges) {}
