package io.durablejournal;

// One job: the crossings of a context's primitives that take a call's id, for a caller that has
// the id whole (the context's own methods) or in two parts (Flink Agents' bridge, through this).

import io.durablejournal.internal.Utf8;
import java.util.List;
import java.util.Objects;

/**
 * The spec §2.1 primitives of one {@link DurableExecutionContext} for a caller that names each call
 * by two parts, as Flink Agents does: a function id and an args digest (null or empty: none). The
 * parts cross to the native core with the primitive, which joins them into the call's id ({@code
 * identity::call_id_with_digest}: the function id alone without a digest, else {@code functionId +
 * "::" + argsDigest}); a slot read here comes back with its id split by the core into the two
 * ({@code identity::split_call_id}). Java joins and splits nothing, and each primitive is one
 * crossing. Each method means what the context's method of that name does for the joined id.
 * Get it with {@link DurableExecutionContext#splitIdPrimitives()}.
 */
public final class SplitIdPrimitives {
    private final DurableExecutionContext context;
    private final DivergenceLog divergences;

    SplitIdPrimitives(DurableExecutionContext context, DivergenceLog divergences) {
        this.context = context;
        this.divergences = divergences;
    }

    /**
     * {@link DurableExecutionContext#matchNextOrClearSubsequentCallResult(String)} of the joined
     * id (the digest is part of the id, so a divergence report carries it there).
     */
    public Object[] matchNextOrClearSubsequentCallResult(String functionId, String argsDigest) {
        return matchNext(id(functionId), digest(argsDigest), true);
    }

    /** {@link DurableExecutionContext#beginCallWithSemantics} of the joined id. */
    public Object[] beginCallWithSemantics(String functionId, String argsDigest, CallSemantics declared, CallSemantics jobDefault) {
        return beginCallWithSemantics(id(functionId), digest(argsDigest), declared, jobDefault);
    }

    public void recordCallCompletion(String functionId, String argsDigest, byte[] resultPayload, byte[] exceptionPayload) {
        recordCallCompletion(id(functionId), digest(argsDigest), resultPayload, exceptionPayload);
    }

    public void appendPendingCall(String functionId, String argsDigest) {
        appendPendingCall(id(functionId), digest(argsDigest));
    }

    public void finalizeCurrentCall(String functionId, String argsDigest, byte[] resultPayload, byte[] exceptionPayload) {
        finalizeCurrentCall(id(functionId), digest(argsDigest), resultPayload, exceptionPayload);
    }

    /**
     * {@link DurableExecutionContext#reservePendingBatch}: call {@code i} is {@code functionIds[i]}
     * with {@code argsDigests[i]}.
     *
     * @throws IllegalArgumentException when the lists differ in length
     */
    public void reservePendingBatch(List<String> functionIds, List<String> argsDigests) {
        Objects.requireNonNull(functionIds, "functionIds");
        Objects.requireNonNull(argsDigests, "argsDigests");
        if (functionIds.size() != argsDigests.size()) {
            throw new IllegalArgumentException("functionIds size (" + functionIds.size() + ") must match argsDigests size ("
                    + argsDigests.size() + ")");
        }
        byte[][] digests = new byte[argsDigests.size()][];
        for (int i = 0; i < digests.length; i++) {
            digests[i] = digest(argsDigests.get(i));
        }
        reservePendingBatch(RunnerCalls.encodeIds(functionIds), digests);
    }

    public void finalizeCallAt(int index, String functionId, String argsDigest, byte[] resultPayload, byte[] exceptionPayload) {
        finalizeCallAt(index, id(functionId), digest(argsDigest), resultPayload, exceptionPayload);
    }

    /**
     * The joined id of the call and its idempotency key at absolute slot {@code index} ({@link
     * DurableExecutionContext#idempotencyKeyAt}), {@code {callId, idempotencyKey}}, in one crossing.
     *
     * @throws JournalException {@code ILLEGAL_STATE} when the journal belongs to no store entry
     */
    public String[] callIdAndIdempotencyKeyAt(int index, String functionId, String argsDigest) {
        checkIndex(index);
        byte[] id = id(functionId);
        byte[] digest = digest(argsDigest);
        byte[][] answer = context.journal().apply(h -> JournalJni.callIdAndIdempotencyKey(h, index, id, digest));
        return new String[] {Utf8.decode(answer[0]), Utf8.decode(answer[1])};
    }

    /**
     * The slot at the call index, or null: {@code [String functionId, String argsDigest, String
     * status, byte[] result, byte[] exception]}, the id split by the core ({@code argsDigest}
     * {@code ""} when it has none, as Flink Agents' Java writes it; an id holding a lone surrogate
     * has none).
     */
    public Object[] getCurrentCallResultFields() {
        JournalSlot slot = context.journal().apply(h -> JournalJni.currentSlot(h, true));
        return slot == null ? null : slot.toSplitFields();
    }

    /** The same 5-tuple for absolute slot {@code index}, or null when out of range. */
    public Object[] getCallResultFieldsAt(int index) {
        checkIndex(index);
        JournalSlot slot = context.journal().apply(h -> JournalJni.slotAt(h, index, true));
        return slot == null ? null : slot.toSplitFields();
    }

    // The crossings, for both callers: `digest` null means `id` is the call's whole id.

    Object[] matchNext(byte[] id, byte[] digest, boolean digestInId) {
        return context.journal().apply(h -> replayed(JournalJni.matchNextOrClearSubsequentCallResult(h, id, digest, digestInId)));
    }

    Object[] beginCallWithSemantics(byte[] id, byte[] digest, CallSemantics declared, CallSemantics jobDefault) {
        return context.journal().apply(h -> replayed(JournalJni.beginCallWithSemantics(h, context.callback(), id, digest, false,
                CallSemantics.numberOf(declared), CallSemantics.numberOf(jobDefault))));
    }

    /**
     * A primitive's step as it answers: {@code [true, result, exception]} for a replay, else null;
     * the divergence it cut is reported (it came on the same crossing).
     */
    private Object[] replayed(CallStep step) {
        if (step == null) {
            return null;
        }
        if (step.divergence != null) {
            divergences.report(step.divergence);
        }
        return step.kind == CallStep.REPLAY ? new Object[] {Boolean.TRUE, step.result, step.exception} : null;
    }

    void recordCallCompletion(byte[] id, byte[] digest, byte[] resultPayload, byte[] exceptionPayload) {
        context.journal().accept(h -> JournalJni.recordCallCompletion(h, context.callback(), id, digest, resultPayload, exceptionPayload));
    }

    void appendPendingCall(byte[] id, byte[] digest) {
        context.journal().accept(h -> JournalJni.appendPendingCall(h, context.callback(), id, digest));
    }

    void finalizeCurrentCall(byte[] id, byte[] digest, byte[] resultPayload, byte[] exceptionPayload) {
        context.journal().accept(h -> JournalJni.finalizeCurrentCall(h, context.callback(), id, digest, resultPayload, exceptionPayload));
    }

    void reservePendingBatch(byte[][] ids, byte[][] digests) {
        context.journal().accept(h -> JournalJni.reservePendingBatch(h, context.callback(), ids, digests));
    }

    void finalizeCallAt(int index, byte[] id, byte[] digest, byte[] resultPayload, byte[] exceptionPayload) {
        checkIndex(index);
        context.journal().accept(h -> JournalJni.finalizeCallAt(h, context.callback(), index, id, digest, resultPayload,
                exceptionPayload));
    }

    /** A call's function id (or whole id) in UTF-8. */
    static byte[] id(String functionId) {
        return Utf8.encode(functionId, "functionId");
    }

    /** An args digest in UTF-8, or null for none (null or empty). */
    private static byte[] digest(String argsDigest) {
        return argsDigest == null || argsDigest.isEmpty() ? null : Utf8.encode(argsDigest, "argsDigest");
    }

    static void checkIndex(int index) {
        if (index < 0) {
            throw new IndexOutOfBoundsException("call result index must not be negative: " + index);
        }
    }
}
