package io.durablejournal.store;

import io.durablejournal.JournalException;
import io.durablejournal.internal.Utf8;
import io.durablejournal.internal.NativeHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.LongFunction;
import java.util.function.ToIntFunction;

/**
 * The native log-backed store (rust/store/log) over a {@link LogTransport} (a Kafka topic, see
 * {@code io.durablejournal.kafka}): every journal mutation is one record of the core's delta
 * format, acknowledged by the log before the durable call returns, so the journals survive the
 * loss of the machine that wrote them. The records, their keys and the rebuild are native; this
 * class owns the handle, computes each key's Flink key group and drives the reads (its keyed calls
 * are {@link NativeKeyedStore}'s, shared with the native file and in-memory stores).
 *
 * <p>A store owns a range of Flink key groups (a subtask's; all of them outside Flink). Its history
 * is set once, before any keyed call: {@link #startFresh} (a new job), {@link #continueHistory} (a
 * job that failed before its first checkpoint) or {@link #rebuildState} (a restore from the
 * markers of a checkpoint taken at any parallelism). The last two read the log's partitions that
 * hold the owned key groups. A key of another key group is loaded the first time it is used (after
 * a rescale, Flink's async operator hands its in-flight records to any subtask).
 *
 * <p>Thread-safe, and concurrent: keyed calls from many threads (an async operator's actions in
 * flight) run at once, each on a handle of its own to the one native store, and a write waits for
 * the log's acknowledgement without holding the store, so the writes of many actions share the
 * log's requests (see {@link LogTransport#submit}). Calls on one entry still happen one after the
 * other. Storage failures are {@link JournalException}s with code {@code STORE_IO} naming the log;
 * the mutation that failed is undone.
 */
public final class LogActionStateStore extends NativeKeyedStore {
    private final LogTransport transport;
    private final ToIntFunction<Object> keyGroupOf;
    private final int maxParallelism;
    private final int firstKeyGroup;
    private final int lastKeyGroup;
    /** The store's own handle: its history, loads, markers, and close. */
    private final NativeHandle store;
    /**
     * Handles on the same native store for keyed calls, one per thread in a call (a handle serves
     * one call at a time, and a write's call lasts until the log acknowledges it).
     */
    private final ConcurrentLinkedDeque<NativeHandle> idleShares = new ConcurrentLinkedDeque<>();
    /** Every share handed out, to close with the store; guarded by itself. */
    private final List<NativeHandle> shares = new ArrayList<>();
    /** Held while reading the log into the store (the transport's reader serves one read at a time). */
    private final Object loading = new Object();
    /** Where completed actions are copied ({@link #retainCompleted}), or null. */
    private volatile LogTransport retainedTransport;

    private LogActionStateStore(LogTransport transport, ToIntFunction<Object> keyGroupOf, int maxParallelism, int firstKeyGroup,
            int lastKeyGroup, long handle) {
        this.transport = transport;
        this.keyGroupOf = keyGroupOf;
        this.maxParallelism = maxParallelism;
        this.firstKeyGroup = firstKeyGroup;
        this.lastKeyGroup = lastKeyGroup;
        this.store = new NativeHandle(this, "ActionStateStore", handle, StoreJni::close);
    }

    /**
     * A store over {@code transport} owning key groups {@code firstKeyGroup..lastKeyGroup} of
     * {@code maxParallelism}; {@code keyGroupOf} gives a business key's key group (Flink's {@code
     * KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism)}), except for a {@link
     * GroupedKey}, which names its own. It takes ownership of the transport (closing the store
     * closes it, as does a failure here).
     */
    public static LogActionStateStore open(LogTransport transport, int maxParallelism, int firstKeyGroup, int lastKeyGroup,
            ToIntFunction<Object> keyGroupOf) {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(keyGroupOf, "keyGroupOf");
        try {
            long handle = LogStoreJni.open(transport, Utf8.encode(transport.name(), "transport.name()"), transport.logId(),
                    transport.partitions(), maxParallelism, firstKeyGroup, lastKeyGroup);
            try {
                long maxRecordBytes = transport.maxRecordBytes();
                if (maxRecordBytes > 0) {
                    byte[] setting = Utf8.encode(transport.recordLimitSetting(), "transport.recordLimitSetting()");
                    LogStoreJni.limitRecords(handle, maxRecordBytes, setting);
                }
            } catch (RuntimeException | Error e) {
                StoreJni.close(handle);
                throw e;
            }
            return new LogActionStateStore(transport, keyGroupOf, maxParallelism, firstKeyGroup, lastKeyGroup, handle);
        } catch (RuntimeException | Error e) {
            transport.close();
            throw e;
        }
    }

    /** Begins a new history named {@code lineage} (16 bytes; Flink's job id): nothing to read. */
    public synchronized void startFresh(byte[] lineage) {
        Objects.requireNonNull(lineage, "lineage");
        store.accept(h -> LogStoreJni.startFresh(h, lineage));
    }

    /** Continues history {@code lineage} without a checkpoint: reads the owned key groups' journals. */
    public synchronized void continueHistory(byte[] lineage) {
        Objects.requireNonNull(lineage, "lineage");
        store.accept(h -> LogStoreJni.continueHistory(h, lineage));
        load(firstKeyGroup, lastKeyGroup, endOffsets());
    }

    /**
     * Continues the history of the checkpoint whose markers (of every subtask, at whatever
     * parallelism it ran) are given: checks the log still holds everything they saw, then reads
     * the owned key groups' journals, the records written after the markers included.
     */
    @Override
    public synchronized void rebuildState(List<byte[]> recoveryMarkers) {
        byte[][] markers = StoreJni.markerArray(recoveryMarkers);
        synchronized (loading) {
            // The native restore reads the log's end through the transport, whose reader is held here.
            store.accept(h -> StoreJni.rebuildState(h, markers));
            loadUnderLock(firstKeyGroup, lastKeyGroup, endOffsets());
        }
    }

    private long[] endOffsets() {
        try {
            return transport.endOffsets();
        } catch (Exception e) {
            throw transportFailure("reading the end offsets of", e);
        }
    }

    /** Reads key groups {@code first..last} from the partitions holding them, up to {@code ends}. */
    private void load(int first, int last, long[] ends) {
        synchronized (loading) {
            loadUnderLock(first, last, ends);
        }
    }

    private void loadUnderLock(int first, int last, long[] ends) {
        store.accept(h -> {
            long[] from = LogStoreJni.readFrom(h);
            for (int partition : LogStoreJni.beginLoad(h, first, last)) {
                try {
                    transport.read(partition, from[partition], ends[partition],
                            (offsets, keys, values) -> LogStoreJni.ingest(h, first, last, partition, offsets, keys, values));
                } catch (JournalException e) {
                    throw e;
                } catch (Exception e) {
                    throw transportFailure("reading partition " + partition + " of", e);
                }
            }
            LogStoreJni.finishLoad(h, first, last);
        });
    }

    private JournalException transportFailure(String what, Exception cause) {
        return new JournalException(JournalException.Code.STORE_IO, what + " " + transport.name() + " failed: " + cause, cause);
    }

    /**
     * Runs a keyed native call on an idle share of the store (a new one when all are in use), so
     * that the writes of many threads wait for the log at once.
     */
    @Override
    <T> T onStore(LongFunction<T> call) {
        NativeHandle share = idleShares.pollFirst();
        if (share == null) {
            share = newShare();
        }
        try {
            return share.apply(call);
        } finally {
            idleShares.offerFirst(share);
        }
    }

    private NativeHandle newShare() {
        synchronized (shares) {
            NativeHandle share = new NativeHandle(this, "ActionStateStore", store.apply(h -> (Long) LogStoreJni.share(h)),
                    LogStoreJni::releaseShare);
            shares.add(share);
            return share;
        }
    }

    /**
     * The key with its key group bound (and loaded first if it is another subtask's): a {@link
     * GroupedKey}'s own, else {@code keyGroupOf} of the key.
     */
    @Override
    BusinessKey keyOf(Object key) {
        BusinessKey k = BusinessKey.of(key);
        int keyGroup = keyGroupFor(key);
        boolean named = key instanceof GroupedKey;
        if (bindKeyGroup(k, keyGroup, named) >= 0) {
            synchronized (loading) {
                // Another thread may have loaded it while this one waited.
                if (bindKeyGroup(k, keyGroup, named) >= 0) {
                    loadUnderLock(keyGroup, keyGroup, endOffsets());
                }
            }
        }
        return k;
    }

    private int keyGroupFor(Object key) {
        if (!(key instanceof GroupedKey)) {
            return keyGroupOf.applyAsInt(key);
        }
        int keyGroup = ((GroupedKey) key).keyGroup();
        if (keyGroup >= maxParallelism) {
            throw new IllegalArgumentException(key + " is outside the key groups 0.." + (maxParallelism - 1) + " of " + this
                    + " (its max parallelism is " + maxParallelism + ")");
        }
        return keyGroup;
    }

    /**
     * Binds {@code k} to {@code keyGroup}: a named one ({@link GroupedKey}) takes the key's new
     * entries even where an earlier build put the key's entries in another key group (they stay
     * there, found while that key group is loaded); one from {@code keyGroupOf} is refused when
     * the key's entries are elsewhere (its hash or the max parallelism changed).
     */
    private int bindKeyGroup(BusinessKey k, int keyGroup, boolean named) {
        return onStore(h -> named ? LogStoreJni.bindNamedKeyGroup(h, k, keyGroup) : LogStoreJni.bindKeyGroup(h, k, keyGroup));
    }

    /** Drops the entries of {@code key} at exactly {@code seqNum}, leaving any other sequence number. */
    @Override
    public void pruneStateAt(Object key, long seqNum) {
        BusinessKey k = BusinessKey.of(key);
        runOnStore(h -> LogStoreJni.pruneAt(h, k, seqNum));
    }

    /**
     * The marker: this history, the log's shape, the offsets reached (pending tombstones go out
     * first) and where a restore may start reading (the log's end, or the first record of an entry
     * held here, whichever is earlier). The native store reads the log's end offsets through the
     * transport (one request), as every native store takes its marker.
     */
    @Override
    public synchronized byte[] getRecoveryMarker() {
        synchronized (loading) {
            return store.apply(StoreJni::recoveryMarker);
        }
    }

    /** Appends the tombstones of pruned entries now (they otherwise go out with the next record). */
    public synchronized void sync() {
        store.accept(StoreJni::sync);
    }

    /**
     * Its {@link LogStoreStats#entries() entries} are those of the key groups loaded here: a first
     * start ({@link #startFresh}) begins a new history and reads nothing, so it holds none (journals
     * of earlier runs in the log are never read); its {@link LogStoreStats#bytesAppended() bytes}
     * are the keys and values of the records the log acknowledged.
     */
    @Override
    public synchronized LogStoreStats stats() {
        return store.apply(LogStoreJni::stats);
    }

    /**
     * Keeps a copy of each action that completes from now on, with its journal, in {@code
     * retained} (another log, e.g. the Kafka store's retained topic; docs/replay.md, "Retention on
     * Kafka"), partition {@code partition}; at most {@code maxCount} copies of this store are kept
     * (the log's compaction keeps the newest copy per key), none older than {@code maxAge} (the
     * log's own retention). The journal's records stay exactly what they are without it. A copy
     * the log refuses stops retention ({@link #retentionError}), never the store. The store closes
     * {@code retained} with itself.
     */
    public synchronized void retainCompleted(LogTransport retained, int partition, Duration maxAge, long maxCount, String planDigest) {
        Objects.requireNonNull(retained, "retained");
        Objects.requireNonNull(maxAge, "maxAge");
        byte[] name = Utf8.encode(retained.name(), "retained.name()");
        byte[] digest = planDigest == null ? null : Utf8.encode(planDigest, "planDigest");
        UUID id = UUID.randomUUID();
        byte[] writer = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
        store.accept(h -> LogStoreJni.retainCompleted(h, retained, name, maxAge.toMillis(), maxCount, digest, writer, partition));
        retainedTransport = retained;
    }

    /** True once {@link #retainCompleted} was called: operators then store each action's input record too. */
    @Override
    public boolean retainsCompleted() {
        return retainedTransport != null;
    }

    /** Why retention stopped (a copy the retained log refused), or null. */
    public synchronized String retentionError() {
        byte[] error = store.apply(LogStoreJni::retentionError);
        return error == null ? null : new String(error, StandardCharsets.UTF_8);
    }

    /** The log, for people. */
    public String describe() {
        return transport.name();
    }

    /**
     * Appends pending tombstones, releases the native store (after the writes in flight on other
     * threads are acknowledged) and closes the transport. Idempotent.
     * A store dropped without it has its native store released once collected, but its Kafka
     * clients stay open: close it.
     */
    @Override
    public synchronized void close() {
        if (store.isClosed()) {
            return;
        }
        try {
            store.close();
        } finally {
            try {
                // After the store: a share's call in flight (a write waiting for the log) ends first.
                synchronized (shares) {
                    for (NativeHandle share : shares) {
                        share.close();
                    }
                }
            } finally {
                try {
                    transport.close();
                } finally {
                    if (retainedTransport != null) {
                        retainedTransport.close();
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "LogActionStateStore{" + transport.name() + ", key groups " + firstKeyGroup + ".." + lastKeyGroup + "}";
    }
}
