package io.fanout.spark.sample;

import java.io.Serializable;

/**
 * What {@code sample --task link} adds to a request: the negative mode, negatives per positive and
 * whether the store is undirected (each training pair is then one seed).
 */
record LinkSpec(String negatives, int perPositive, boolean undirected) implements Serializable {}
