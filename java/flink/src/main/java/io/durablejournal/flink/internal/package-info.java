/**
 * Internal: no compatibility promise. What the library's own Flink operators (the Flink
 * integration's and the Flink Agents adapter's) share: opening, checking and closing a subtask's
 * store ({@link io.durablejournal.flink.internal.SubtaskStores}) and the store's Flink metrics
 * ({@link io.durablejournal.flink.internal.StoreMetrics}; the metric names are documented in
 * {@code docs/flink.md}, "Metrics"). Public only because those operators live in other packages
 * and jars; it may change in any release.
 */
package io.durablejournal.flink.internal;
