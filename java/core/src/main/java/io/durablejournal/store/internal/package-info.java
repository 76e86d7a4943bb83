/**
 * Internal: no compatibility promise. What only durable-journal's native stores answer, for the
 * library's own callers (the Flink Agents adapter): entries read and written as Flink Agents'
 * {@code ActionStateSerde} JSON ({@link io.durablejournal.store.internal.JsonEntryStore}), and
 * that read for every store a user's factory may return ({@link
 * io.durablejournal.store.internal.JsonEntries}). A store of your own implements {@link
 * io.durablejournal.store.ActionStateStore} only; nothing here is part of the public API and it
 * may change in any release.
 */
package io.durablejournal.store.internal;
