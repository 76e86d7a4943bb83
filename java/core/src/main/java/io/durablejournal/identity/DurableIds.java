package io.durablejournal.identity;

import io.durablejournal.internal.Utf8;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Durable ids of calls (spec §3), computed by the Rust core that the Python runtime also calls, so
 * both derive byte-identical ids.
 */
public final class DurableIds {
    /**
     * The durable id of every built-in chat attempt; retries share it and differ by call index. The
     * same value as Rust's and Python's copies ({@code tests/vectors/identity.json}, kind {@code
     * chat}, checks all three).
     */
    public static final String CHAT_DURABLE_ID = "chat";

    private DurableIds() {}

    /**
     * 16 lowercase hex characters of SHA-256 over the canonical encoding of {@code (args,
     * kwargs)}; keyword, map and set order never matter.
     *
     * @throws io.durablejournal.JournalException code {@code NON_CANONICAL_ARGUMENT} when a value
     *     has no canonical form (the message names where it sits)
     */
    public static String computeArgsDigest(List<?> args, Map<String, ?> kwargs) {
        return Utf8.decode(IdentityJni.argsDigest(CanonicalTree.callTreeJson(args, kwargs)));
    }

    /**
     * {@code durableId} unchanged when it is not null (the arguments are then not looked at), else
     * {@code functionId + "::" + computeArgsDigest(args, kwargs)}; {@code functionId} is the
     * Python-style {@code module.qualname}.
     */
    public static String durableIdentityForCall(String functionId, List<?> args, Map<String, ?> kwargs, String durableId) {
        byte[] explicit = Utf8.encodeOrNull(durableId, "durableId");
        return Utf8.decode(IdentityJni.callDurableId(explicit, new PendingCall(functionId, args, kwargs)));
    }

    /**
     * The call id of a call named by a function id and an args digest (Flink Agents' two fields):
     * {@code functionId} alone when {@code argsDigest} is null or empty (a Java {@code
     * DurableCallable}), else {@code functionId + "::" + argsDigest}, the shape of {@link
     * #durableIdentityForCall}. Computed by the core, as the split back ({@link #functionIdOfCallId},
     * {@link #argsDigestOfCallId}).
     */
    public static String callIdWithDigest(String functionId, String argsDigest) {
        byte[] digest = Utf8.encodeOrNull(argsDigest, "argsDigest");
        return Utf8.decode(IdentityJni.callIdWithDigest(Utf8.encode(functionId, "functionId"), digest));
    }

    /**
     * The function id of a call id: the id without its args digest when it ends in {@code "::"} and
     * 16 lowercase hex digits, else the whole id. An id that is not well-formed Unicode (a lone
     * surrogate, as Flink Agents may have written it) has no digest and comes back unchanged.
     */
    public static String functionIdOfCallId(String callId) {
        Objects.requireNonNull(callId, "callId");
        return Utf8.isWellFormed(callId) ? Utf8.decode(IdentityJni.functionIdOfCallId(Utf8.encode(callId, "callId"))) : callId;
    }

    /** The args digest a call id ends in ({@link #functionIdOfCallId}), or {@code ""} when it has none. */
    public static String argsDigestOfCallId(String callId) {
        Objects.requireNonNull(callId, "callId");
        return Utf8.isWellFormed(callId) ? Utf8.decode(IdentityJni.argsDigestOfCallId(Utf8.encode(callId, "callId"))) : "";
    }

    /** {@code "tool-call:" + toolCallId}, the id unchanged. */
    public static String toolCallDurableId(String toolCallId) {
        return Utf8.decode(IdentityJni.toolCallDurableId(Utf8.encode(toolCallId, "toolCallId")));
    }

    static <T> T requireNonNull(T value, String name) {
        return Objects.requireNonNull(value, name + " must not be null");
    }
}
