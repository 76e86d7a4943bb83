package io.durablejournal.identity;

import io.durablejournal.Utf8;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Durable ids of calls (spec §3), computed by the Rust core that the Python runtime also calls, so
 * both derive byte-identical ids.
 */
public final class DurableIds {
    /** The durable id of every built-in chat attempt; retries share it and differ by call index. */
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
        return Utf8.decode(NativeIdentity.argsDigest(CanonicalTree.callTreeJson(args, kwargs)));
    }

    /**
     * {@code durableId} unchanged when it is not null (the arguments are then not looked at), else
     * {@code functionId + "::" + computeArgsDigest(args, kwargs)}; {@code functionId} is the
     * Python-style {@code module.qualname}.
     */
    public static String durableIdentityForCall(String functionId, List<?> args, Map<String, ?> kwargs, String durableId) {
        if (durableId != null) {
            return Utf8.decode(NativeIdentity.callDurableId(null, null, Utf8.encode(durableId, "durableId")));
        }
        byte[] function = Utf8.encode(functionId, "functionId");
        return Utf8.decode(NativeIdentity.callDurableId(function, CanonicalTree.callTreeJson(args, kwargs), null));
    }

    /** {@code "tool-call:" + toolCallId}, the id unchanged. */
    public static String toolCallDurableId(String toolCallId) {
        return Utf8.decode(NativeIdentity.toolCallDurableId(Utf8.encode(toolCallId, "toolCallId")));
    }

    /** {@link #CHAT_DURABLE_ID} as the native library defines it. */
    public static String chatDurableId() {
        return Utf8.decode(NativeIdentity.chatDurableId());
    }

    static <T> T requireNonNull(T value, String name) {
        return Objects.requireNonNull(value, name + " must not be null");
    }
}
