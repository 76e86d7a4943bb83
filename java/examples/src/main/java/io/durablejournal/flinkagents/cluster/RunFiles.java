package io.durablejournal.flinkagents.cluster;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

/**
 * The files through which a {@link ClusterJob} run meets the test (or person) that submitted it:
 * every process of the cluster sees the same directory, so these replace the in-JVM staging of
 * the MiniCluster demo. Under the run's directory:
 * <ul>
 *   <li>{@code journal/}: the file stores of the agent's subtasks;</li>
 *   <li>{@code side-effects.log}: one line per executed call ({@link io.durablejournal.demo.SideEffectLog});</li>
 *   <li>{@code answers/<requestId>}: each request's answer, written by the job's sink;</li>
 *   <li>{@code answered/<requestId>}: the request's last action is done (the source's gate reads these);</li>
 *   <li>{@code crash-staged}: the process id of the TaskManager whose action waits to be killed.</li>
 * </ul>
 * Serializable (a path as text): the job's functions carry it to every TaskManager.
 */
public final class RunFiles implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String dir;

    public RunFiles(Path dir) {
        this.dir = dir.toAbsolutePath().toString();
    }

    public Path dir() {
        return Paths.get(dir);
    }

    public Path journal() {
        return dir().resolve("journal");
    }

    public Path sideEffects() {
        return dir().resolve("side-effects.log");
    }

    public Path answers() {
        return dir().resolve("answers");
    }

    public Path crashStaged() {
        return dir().resolve("crash-staged");
    }

    /** Creates the run's directories (the job's main does, before the job starts). */
    public void create() throws IOException {
        Files.createDirectories(answers());
        Files.createDirectories(dir().resolve("answered"));
        Files.createDirectories(journal());
    }

    /** The request's last action is done. */
    public void markAnswered(String requestId) {
        writeAtomically(dir().resolve("answered").resolve(requestId), "");
    }

    public boolean isAnswered(String requestId) {
        return Files.exists(dir().resolve("answered").resolve(requestId));
    }

    /** Writes the request's answer (again, with the same text, when the sink sees it twice). */
    public void writeAnswer(String requestId, String answer) {
        writeAtomically(answers().resolve(requestId), answer);
    }

    /**
     * Claims the run's one crash for this process: true the first time in the whole run (in any
     * process), with this process's id written, so that the caller then waits to be killed.
     */
    public boolean claimCrash() {
        Path claim = dir().resolve("crash-claimed");
        try {
            Files.createFile(claim);
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        writeAtomically(crashStaged(), Long.toString(ProcessHandle.current().pid()));
        return true;
    }

    /** Whether the run's crash was claimed (before it, the source stages the failover). */
    public boolean crashClaimed() {
        return Files.exists(dir().resolve("crash-claimed"));
    }

    /** A reader never sees a half-written file: written next to it, then renamed over it. */
    private static void writeAtomically(Path target, String text) {
        try {
            Path partial = Files.createTempFile(target.getParent(), ".partial-", "");
            Files.write(partial, text.getBytes(StandardCharsets.UTF_8));
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
