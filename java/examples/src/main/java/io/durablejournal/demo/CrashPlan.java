package io.durablejournal.demo;

import java.io.Serializable;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Where the demo's agent crashes, once: after {@code afterCalls} calls of request {@code requestId},
 * the first time only. A flag file records that the crash happened, so the re-run after the
 * restart goes through (the file outlives the task that crashed; a field would not).
 */
public final class CrashPlan implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String requestId;
    private final int afterCalls;
    private final String flagFile;

    /** {@code requestId} empty: never crash. */
    public CrashPlan(String requestId, int afterCalls, String flagFile) {
        this.requestId = requestId;
        this.afterCalls = afterCalls;
        this.flagFile = flagFile;
    }

    /** Throws {@link SupportAgent.InjectedCrash} when the request has made the planned number of calls, once. */
    void after(Request request, int callsDone) throws Exception {
        if (!request.id.equals(requestId) || callsDone != afterCalls) {
            return;
        }
        try {
            Files.createFile(Paths.get(flagFile));
        } catch (FileAlreadyExistsException alreadyCrashedOnce) {
            return;
        }
        throw new SupportAgent.InjectedCrash("injected crash in " + request.id + " after " + callsDone + " calls");
    }
}
