package io.fanout.tensor;

/**
 * Feature rows that a backend reads in place from pages it allocated: a feature cache keeps its
 * encoded rows in them ({@link PageMemory}), resolves a batch's nodes to slots, and {@link #gather}
 * reads the rows of those slots, decoding them as the store's decoder does ({@code train
 * --feature-access zero-copy --feature-cache P}: on a GPU the pages are mapped pinned host memory,
 * so the cache fills the memory the device reads and the host gathers nothing). The ids given to
 * {@link #gather} are slots; {@link #numRows} is the slots allocated so far. Opened by {@link
 * Backend#pagedFeatureRows}; close it after the cache and before its backend.
 */
public interface PagedFeatureRows extends FeatureRows, PageMemory {}
