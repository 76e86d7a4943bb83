package io.durablejournal.testing;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a test run shares with the functions of its job: Flink serializes a job's sources, actions
 * and stores, and the MiniCluster deserializes them in this JVM, so they cannot hold the test's
 * objects; they hold a run id and find the run's object here. One registry per kind of run object,
 * as a static field of the class that stages the runs.
 *
 * @param <T> what one run observes (latches, counters, the failures it saw)
 */
public final class RunRegistry<T> {
    private final Map<String, T> runs = new ConcurrentHashMap<>();

    /** Registers {@code run} under a new run id; {@link Registration#close()} unregisters it. */
    public Registration<T> register(T run) {
        return register(UUID.randomUUID().toString(), run);
    }

    /** Registers {@code run} under {@code runId}, replacing any run of that id. */
    public Registration<T> register(String runId, T run) {
        runs.put(runId, run);
        return new Registration<>(this, runId, run);
    }

    /** The run of {@code runId}; fails when none is registered (a function outlived its test). */
    public T of(String runId) {
        T run = runs.get(runId);
        if (run == null) {
            throw new IllegalStateException("no run " + runId + " is registered");
        }
        return run;
    }

    /** Forgets the run of {@code runId} (nothing when there is none). */
    public void unregister(String runId) {
        runs.remove(runId);
    }

    /** One registered run: its id for the job's functions, unregistered when closed. */
    public static final class Registration<T> implements AutoCloseable {
        private final RunRegistry<T> registry;
        private final String id;
        private final T run;

        private Registration(RunRegistry<T> registry, String id, T run) {
            this.registry = registry;
            this.id = id;
            this.run = run;
        }

        /** The id the job's functions find the run by. */
        public String id() {
            return id;
        }

        public T run() {
            return run;
        }

        @Override
        public void close() {
            registry.unregister(id);
        }
    }
}
