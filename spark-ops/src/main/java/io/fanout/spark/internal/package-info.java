/**
 * Infrastructure shared by Fanout's Spark stages and commands: job labels ({@link
 * io.fanout.spark.internal.JobLabels}, {@link io.fanout.spark.internal.JobSteps}), the
 * instrumentation seams ({@link io.fanout.spark.internal.Hooks}), task metric totals and the JSON
 * line of results. <b>Not public API</b>: it may change in any release without notice. The public
 * API is {@link io.fanout.spark.Fanout}, its actions and their results; the stage packages ({@code
 * io.fanout.spark.prepare}, {@code .sample}, {@code .train}, ...) build on this package, and the
 * API package on them, never the reverse.
 */
package io.fanout.spark.internal;
