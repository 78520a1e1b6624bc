package io.fanout.tensor;

import io.fanout.features.PageMemory;

/**
 * Feature rows that a backend reads in place from pages it allocated: a {@link
 * io.fanout.features.RowCache} keeps its encoded rows in them ({@link PageMemory}), resolves a
 * batch's nodes to slots ({@link io.fanout.features.RowCache#resolve}), and {@link #gather} reads
 * the rows of those slots, decoding them as the store's decoder does ({@code train --feature-access
 * zero-copy --feature-cache P}: on a GPU the pages are mapped pinned host memory, so the cache
 * fills the memory the device reads and the host gathers nothing). The ids given to {@link #gather}
 * are slots; {@link #numRows} is the slots allocated so far. Opened by {@link
 * Backend#pagedFeatureRows}; close it after the cache and before its backend.
 */
public interface PagedFeatureRows extends FeatureRows, PageMemory {}
