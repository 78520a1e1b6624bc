package io.fanout.train;

import io.fanout.sample.MiniBatch;

/**
 * A batch as read from storage: its structure, and its input features when the shard inlines them
 * ({@code features == null} means the loader gathers them from the feature table).
 */
public record DecodedBatch(MiniBatch batch, float[] features) {}
