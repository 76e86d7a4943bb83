package io.durablejournal.demo;

import java.nio.file.Path;

/**
 * What a run of either operator's demo job takes (its own {@code AgentJob.Settings} adds the
 * rest). Mutable, for a short setup block.
 */
public class JobSettings {
    public int requests = 12;
    /** The source waits before this request for a completed checkpoint (negative: no gate); see {@link RequestSource}. */
    public int gateAt = 5;
    /** Index of the request that crashes once (negative: none); the gate's burst ends there. */
    public int crashAt = 7;
    public int parallelism = 2;
    /** False: the same job with no journal store, to show what it costs. */
    public boolean journal = true;
    /** The side-effect log and (by default) the stores live here. */
    public Path workDir;

    /** The last request the source emits in one burst after the gate. */
    public int burstEnd() {
        return crashAt >= 0 ? crashAt : gateAt;
    }

    /** The default file stores' directory (one subdirectory per subtask). */
    public Path storeDir() {
        return workDir.resolve("store");
    }

    /** The {@link SideEffectLog} of the run. */
    public Path sideEffectFile() {
        return workDir.resolve("side-effects.log");
    }
}
