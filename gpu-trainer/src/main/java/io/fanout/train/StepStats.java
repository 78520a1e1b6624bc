package io.fanout.train;

/**
 * What one training step saw: summed loss over its labeled seeds, their count and how many were
 * predicted right (before the update).
 */
public record StepStats(double lossSum, int labeled, int correct) {}
