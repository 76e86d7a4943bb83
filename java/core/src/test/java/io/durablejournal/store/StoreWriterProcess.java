package io.durablejournal.store;

import io.durablejournal.CountingCall;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import java.io.PrintStream;
import java.nio.file.Paths;

/**
 * The child process of {@link FileStoreKillTest}: opens the file store in {@code args[0]} and
 * journals one durable call after another (each in its own action entry), printing {@code ACK
 * <i>} only after the call's record was acknowledged (the journal write returned, which under
 * the default durability means fsynced). It stops by itself after {@code args[1]} calls, in case
 * nobody kills it.
 */
public final class StoreWriterProcess {
    private StoreWriterProcess() {}

    static String key(int i) {
        return "user-" + (i % 3);
    }

    static long seq(int i) {
        return i / 3;
    }

    static String callId(int i) {
        return "tool-call:" + i;
    }

    static String value(int i) {
        return "result-" + i + "-" + "x".repeat(i % 50);
    }

    public static void main(String[] args) throws Exception {
        int limit = Integer.parseInt(args[1]);
        PrintStream out = System.out;
        try (NativeActionStateStore store = ActionStateStores.openFileStore(Paths.get(args[0]))) {
            out.println("OPEN");
            out.flush();
            for (int i = 0; i < limit; i++) {
                EventIdentity event = EventIdentity.rootOccurrence(key(i), seq(i));
                try (DurableExecutionContext ctx = store.openContext(key(i), seq(i), "act", event, null)) {
                    new RunnerContextImpl(ctx).durableExecute(CountingCall.returning(callId(i), value(i)));
                }
                out.println("ACK " + i);
                out.flush();
            }
        }
        out.println("DONE");
        out.flush();
    }
}
