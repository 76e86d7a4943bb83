package io.durablejournal;

import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.internal.Utf8;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One slot of the native journal as it crosses the boundary: built by the native library ({@code
 * journal_slot} in rust/jni/journal.rs) with the id still in UTF-8, so a caller that reads only
 * the outcome (a replay) decodes nothing. Public only so that a store can hand a {@link
 * DurableExecutionContext#resuming(java.util.List, java.util.function.Supplier) resuming} context
 * the recorded hits the native library computed ({@link io.durablejournal.store.internal.ResumingEntry});
 * it has no public constructor, and its factories ({@link #recorded}) take what such a store
 * read.
 */
public final class JournalSlot {
    private static final CallResult.Status[] STATUSES = CallResult.Status.values();

    /**
     * The call's id in UTF-8 (WTF-8 for an id holding a lone surrogate), or null; in a slot read
     * split ({@link #argsDigest} not null), the function id part of it.
     */
    final byte[] functionId;
    /**
     * Null for a slot read whole; in a slot read split, the args digest part of its id (UTF-8,
     * empty when it has none): the native core split the id ({@code identity::split_call_id}).
     */
    final byte[] argsDigest;
    final CallResult.Status status;
    /** The recorded result (JSON), or null. */
    final byte[] result;
    /** The recorded failure (JSON), or null. */
    final byte[] exception;

    /** {@code status}: the ordinal of {@link CallResult.Status} ({@code SLOT_*} in rust/jni/journal.rs). */
    @CalledFromNative
    private JournalSlot(byte[] functionId, byte[] argsDigest, int status, byte[] result, byte[] exception) {
        this(functionId, argsDigest, STATUSES[status], result, exception);
    }

    private JournalSlot(byte[] functionId, byte[] argsDigest, CallResult.Status status, byte[] result, byte[] exception) {
        this.functionId = functionId;
        this.argsDigest = argsDigest;
        this.status = status;
        this.result = result;
        this.exception = exception;
    }

    /**
     * The slots a native store read for a crossing, as columns: slot {@code i}'s id and result
     * are the next {@code idLengths[i]} and {@code resultLengths[i]} bytes of {@code packed}
     * (taken in that order, slot by slot; a length of -1 is none), unless {@code
     * separateResults[i]} holds its result (a large one crosses on its own); its status is {@code
     * statuses[i]} and its exception {@code exceptions[i]}, each as the native constructor takes
     * it ({@code separateResults} and {@code exceptions} are null when all their elements would
     * be). An unmodifiable list, in order. For the library's own crossings ({@link
     * io.durablejournal.store.internal.ResumingEntry}); the native side chose every length, and
     * this only slices.
     */
    public static List<JournalSlot> recorded(byte[] packed, int[] idLengths, int[] resultLengths, byte[][] separateResults,
            int[] statuses, byte[][] exceptions) {
        int count = statuses.length;
        int separateCount = separateResults == null ? count : separateResults.length;
        int exceptionCount = exceptions == null ? count : exceptions.length;
        if (idLengths.length != count || resultLengths.length != count || separateCount != count || exceptionCount != count) {
            throw new IllegalArgumentException("slot columns of different lengths: " + count + ", " + idLengths.length + ", "
                    + resultLengths.length + ", " + separateCount + ", " + exceptionCount);
        }
        JournalSlot[] slots = new JournalSlot[count];
        int at = 0;
        for (int i = 0; i < count; i++) {
            byte[] id = slice(packed, at, idLengths[i]);
            at += Math.max(0, idLengths[i]);
            byte[] result = separateResults == null ? null : separateResults[i];
            if (result == null) {
                result = slice(packed, at, resultLengths[i]);
                at += Math.max(0, resultLengths[i]);
            }
            slots[i] = new JournalSlot(id, null, statuses[i], result, exceptions == null ? null : exceptions[i]);
        }
        if (at != packed.length) {
            throw new IllegalArgumentException("the slot lengths cover " + at + " of " + packed.length + " packed bytes");
        }
        return Collections.unmodifiableList(Arrays.asList(slots));
    }

    /**
     * The {@code count} slots a native store packed for a crossing of many entries ({@code
     * in_flight_entries} in rust/jni/store/in_flight.rs): slot {@code i}'s id and result are the
     * next {@code slotColumns[3 * (firstSlot + i)]} and {@code slotColumns[3 * (firstSlot + i) + 1]}
     * bytes of {@code packed} from {@code from} (-1: none), its status the column after them; the
     * slots end at {@code to}. An unmodifiable list, in order; this only slices.
     */
    public static List<JournalSlot> recorded(byte[] packed, int from, int to, int[] slotColumns, int firstSlot, int count) {
        JournalSlot[] slots = new JournalSlot[count];
        int at = from;
        for (int i = 0; i < count; i++) {
            int column = 3 * (firstSlot + i);
            int idLength = slotColumns[column];
            int resultLength = slotColumns[column + 1];
            byte[] id = slice(packed, at, idLength);
            at += Math.max(0, idLength);
            byte[] result = slice(packed, at, resultLength);
            at += Math.max(0, resultLength);
            slots[i] = new JournalSlot(id, null, slotColumns[column + 2], result, null);
        }
        if (at != to) {
            throw new IllegalArgumentException("the slot lengths cover " + (at - from) + " of " + (to - from) + " packed bytes");
        }
        return Collections.unmodifiableList(Arrays.asList(slots));
    }

    /** The {@code length} bytes of {@code packed} from {@code from}; null for a length of -1. */
    private static byte[] slice(byte[] packed, int from, int length) {
        return length < 0 ? null : Arrays.copyOfRange(packed, from, from + length);
    }

    /** A slot of a state the native library read, as it would cross (the payloads are shared, not copied). */
    static JournalSlot of(CallResult slot) {
        return new JournalSlot(Utf8.encodeOrNull(slot.getFunctionId(), "functionId"), null, slot.getStatus(), slot.recordedResult(),
                slot.recordedException());
    }

    /** The spec's 4-tuple {@code [String functionId, String status, byte[] result, byte[] exception]}. */
    Object[] toFields() {
        return new Object[] {functionId == null ? null : Utf8.decode(functionId), status.name(), result, exception};
    }

    /**
     * A slot read split: {@code [String functionId, String argsDigest, String status, byte[] result,
     * byte[] exception]}, the id's parts as the native core split it ({@code argsDigest} {@code ""}
     * when it has none; a null id is a null function id).
     */
    Object[] toSplitFields() {
        if (argsDigest == null) {
            throw new IllegalStateException("the slot was read whole, not split");
        }
        return new Object[] {functionId == null ? null : Utf8.decode(functionId), Utf8.decode(argsDigest), status.name(), result,
            exception};
    }

    /** The slot as a {@link CallResult} (with no args digest), for a reader that lists recorded hits. */
    public CallResult toCallResult() {
        return CallResult.read(functionId == null ? null : Utf8.decode(functionId), "", status, result, exception);
    }
}
