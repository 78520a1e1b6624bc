package io.fanout.spark.ml;

/**
 * The Params that {@link GnnClassifier} and its {@link GnnClassificationModel} share: those of a
 * one-type graph ({@link GnnGraphParams}) and of node classification ({@link GnnNodeParams}).
 */
public interface GnnClassifierParams extends GnnGraphParams, GnnNodeParams {}
