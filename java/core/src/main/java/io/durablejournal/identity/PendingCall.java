package io.durablejournal.identity;

import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.internal.Utf8;
import java.util.List;
import java.util.Map;

/**
 * A call waiting for its durable id. The native library decides whether it needs one (an explicit
 * id wins, else it derives the id, {@code rust/identity} {@code call_durable_id}) and only then
 * asks for the function id and the call tree, so an explicitly named call never has its arguments
 * walked, and arguments with no canonical form are no error there.
 */
final class PendingCall {
    private final String functionId;
    private final List<?> args;
    private final Map<String, ?> kwargs;

    PendingCall(String functionId, List<?> args, Map<String, ?> kwargs) {
        this.functionId = functionId;
        this.args = args;
        this.kwargs = kwargs;
    }

    /** The function id as UTF-8; called by {@code rust/jni/identity.rs} ({@code describe_call}). */
    @CalledFromNative
    byte[] functionIdUtf8() {
        return Utf8.encode(functionId, "functionId");
    }

    /** The call tree as UTF-8 JSON; called by {@code rust/jni/identity.rs} ({@code describe_call}). */
    @CalledFromNative
    byte[] callTreeJson() {
        return CanonicalTree.callTreeJson(args, kwargs);
    }
}
