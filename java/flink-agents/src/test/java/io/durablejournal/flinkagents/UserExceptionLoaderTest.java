package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.DurableCallable;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * A recorded failure replays as the user's own exception class although the adapter wraps every
 * call in a callable of its own: as on a cluster with the adapter in Flink's {@code lib/} and the
 * agent in the job jar, the user's classes come from a loader below the adapter's. Here that
 * loader defines {@link UserCode}'s classes itself, so the adapter's loader holds other classes of
 * the same names: a replay that looked in the adapter's loader would throw the wrong class (on a
 * cluster, where it finds none, a {@code RuntimeException}).
 */
class UserExceptionLoaderTest {
    /** The job jar's code: a call that fails with the user's own exception. */
    public static final class UserCode {
        public static final class QuotaExceeded extends Exception {
            public QuotaExceeded(String message) {
                super(message);
            }
        }

        /** A call that throws on its first run and must never run again: a replay serves its failure. */
        public static final class RefusedCall implements DurableCallable<String> {
            private final boolean firstRun;

            public RefusedCall(boolean firstRun) {
                this.firstRun = firstRun;
            }

            @Override
            public String getId() {
                return "send-mail";
            }

            @Override
            public Class<String> getResultClass() {
                return String.class;
            }

            @Override
            public String call() throws Exception {
                if (!firstRun) {
                    throw new AssertionError("a recorded call ran again");
                }
                throw new QuotaExceeded("over quota");
            }
        }
    }

    /** A job jar's loader: defines {@link UserCode} and its members from their class files, asks its parent for the rest. */
    private static final class JobJarLoader extends ClassLoader {
        JobJarLoader(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(UserCode.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> defined = findLoadedClass(name);
                if (defined == null) {
                    try (InputStream classFile = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        if (classFile == null) {
                            throw new ClassNotFoundException(name);
                        }
                        byte[] bytes = classFile.readAllBytes();
                        defined = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return defined;
            }
        }
    }

    private final AgentPlan plan = Fixtures.plan();

    @SuppressWarnings("unchecked")
    private static DurableCallable<String> refusedCall(ClassLoader jobJar, boolean firstRun) throws Exception {
        Class<?> type = jobJar.loadClass(UserCode.RefusedCall.class.getName());
        return (DurableCallable<String>) type.getConstructor(boolean.class).newInstance(firstRun);
    }

    /** One attempt of the action: the operator's context, the adapter's journal, the call. */
    private Exception attempt(JournalActionStateStore store, InputEvent event, DurableCallable<String> call) {
        RunnerContextImpl flinkAgents = Fixtures.operatorContext(store, "user-1", 1, Fixtures.draft(plan), event, plan);
        NativeJournalContext journal = ServedStates.installJournal(flinkAgents);
        try {
            return assertThrows(Exception.class, () -> new JournaledRunnerContext(flinkAgents, journal).durableExecute(call));
        } finally {
            journal.release(); // the attempt ends as at a failover: the entry stays unfinished
        }
    }

    @Test
    void aReplayedFailureIsTheJobJarsExceptionClass() throws Exception {
        ClassLoader jobJar = new JobJarLoader(UserExceptionLoaderTest.class.getClassLoader());
        Class<?> usersException = jobJar.loadClass(UserCode.QuotaExceeded.class.getName());
        assertNotSame(UserCode.QuotaExceeded.class, usersException, "the job jar's class is not the adapter loader's");

        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent event = Fixtures.input(1);
            Exception first = attempt(store, event, refusedCall(jobJar, true));
            assertSame(usersException, first.getClass());

            Exception replayed = attempt(store, event, refusedCall(jobJar, false));
            assertSame(usersException, replayed.getClass(), "rebuilt in the user's loader: " + replayed);
            assertEquals("over quota", replayed.getMessage());
        }
    }
}
