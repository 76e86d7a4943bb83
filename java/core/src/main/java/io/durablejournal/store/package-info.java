/**
 * ActionState storage (spec §4) for Java: {@link io.durablejournal.store.ActionStateStore} and its
 * three native implementations, {@link io.durablejournal.store.ActionStateStores#inMemory()}, the
 * embedded append-only file store {@link io.durablejournal.store.ActionStateStores#openFileStore}
 * and the log store {@link io.durablejournal.store.LogActionStateStore} over a {@link
 * io.durablejournal.store.LogTransport} (Kafka: {@code java/kafka}) (format, durability and
 * recovery: {@code docs/store.md}). The records, their format and every rule about them are the
 * Rust {@code store} module; these classes marshal and translate errors, except that the log
 * store's Java side also computes each business key's Flink key group and drives the loading of
 * key groups from the log ({@link io.durablejournal.store.LogActionStateStore}).
 *
 * <h2>Addresses</h2>
 * An entry is addressed by (business key, sequence number, action name, event identity), each
 * part typed and length-prefixed in Rust, so none of the collisions of {@code key_seq_action}
 * strings can happen. Business keys: {@code String} (UTF-8), {@code Long}, {@code Integer} and
 * {@code byte[]} are distinct kinds; any other object is a typed key of its class name plus the
 * UTF-8 of its {@code toString()} (chosen over Java serialization because it stays stable when
 * a key class evolves and needs no {@code Serializable}); a class that does not override {@code
 * toString()} is refused. Event identity: preferably the occurrence id, e.g. {@link
 * io.durablejournal.store.EventIdentity#rootOccurrence} for an input record; an attribute digest
 * only for events without one.
 *
 * <h2>Journals</h2>
 * {@link io.durablejournal.store.ActionStateStore#openContext} returns a {@link
 * io.durablejournal.DurableExecutionContext} built natively over the stored entry whose every
 * persisted mutation is one delta record in the store (no call back into Java but the log store's
 * transport, no rewrite of the whole state), written before the journal call returns.
 *
 * <h2>Concurrency</h2>
 * One store serves every action of an operator. In Rust it is an {@code Arc<Mutex<store>>}: the
 * Java store handle holds one reference and each open journal another, and every operation, direct
 * or from a journal, holds the mutex, for its whole duration except the log store's writes: those
 * submit under the mutex and wait for the log's acknowledgement without it (the entry being
 * written stays busy until then; other entries are not held up). So journals and direct calls may
 * run on any threads; closing the store while journals are open is safe (their later writes fail
 * with a {@code CLOSED} {@link io.durablejournal.JournalException}); a panic inside a store
 * operation poisons the store and later calls fail with {@code ILLEGAL_STATE}.
 */
package io.durablejournal.store;
