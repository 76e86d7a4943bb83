package io.durablejournal.flinkagents;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.streaming.runtime.tasks.StreamTaskActionExecutor;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxExecutorImpl;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxProcessor;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;

/**
 * Keeps an action that throws from losing its input in Flink Agents' operator (0.3.1 and main alike).
 *
 * <p>When an action throws, {@code ActionExecutionOperator} has already taken its task out of
 * keyed state; it does not fail the task at once but enqueues a mail ({@value #RETHROW_MAIL})
 * that rethrows the exception. The mailbox runs that mail only after its next default action,
 * which may process a checkpoint barrier: that checkpoint holds neither the record (consumed
 * before the barrier) nor its task, and a restore from it loses the input.
 *
 * <p>The guard sees that mail being enqueued (the operator's mailbox executor is a {@link
 * MailboxExecutorImpl} over a {@link TaskMailbox} that reports every mail put into it, built
 * from the task's own mailbox, action executor and processor), and the operator's {@code
 * snapshotState} runs it before anything is snapshotted: the action's exception fails the
 * checkpoint and the task, so the last completed checkpoint still holds the input.
 *
 * <p>The mail is known by the description Flink Agents gives it, {@value #RETHROW_MAIL}. So that a
 * Flink Agents whose operator describes it otherwise (or no longer enqueues it) cannot leave the
 * guard watching for a mail that never comes, {@link #watch} first checks that the operator's
 * class still holds that description as a constant, and refuses to start otherwise.
 */
final class ActionFailureGuard {
    /** The description {@code ActionExecutionOperator} (0.3.1 and main at 8ad3a32b) gives its rethrow mail. */
    static final String RETHROW_MAIL = "throw exception in mailbox";

    private volatile Mail pendingFailure;

    /**
     * A mailbox executor that enqueues into the same mailbox as {@code executor}, with its
     * priority and action executor, and lets this guard see each mail.
     *
     * @throws IllegalStateException when {@code executor} is not Flink's {@link MailboxExecutorImpl}
     *     of a Flink version whose fields this guard knows (Flink Agents reflects into it too)
     */
    MailboxExecutor watch(MailboxExecutor executor) {
        requireRethrowMailDescribed(ActionExecutionOperator.class);
        if (!(executor instanceof MailboxExecutorImpl)) {
            throw new IllegalStateException("cannot guard the mailbox executor " + executor.getClass().getName()
                    + ": Flink Agents' operator needs Flink's MailboxExecutorImpl");
        }
        MailboxExecutorImpl impl = (MailboxExecutorImpl) executor;
        TaskMailbox mailbox = field(impl, "mailbox", TaskMailbox.class);
        StreamTaskActionExecutor actions = field(impl, "actionExecutor", StreamTaskActionExecutor.class);
        MailboxProcessor processor = field(impl, "mailboxProcessor", MailboxProcessor.class);
        return new MailboxExecutorImpl(watching(mailbox), impl.getPriority(), actions, processor);
    }

    /**
     * Runs the rethrow mail of an action that failed since the last checkpoint, which throws the
     * action's exception; does nothing when no action failed.
     */
    void failIfAnActionFailed() throws Exception {
        Mail failure = pendingFailure;
        if (failure != null) {
            failure.run();
            throw new IllegalStateException("an action failed but its rethrow mail did not throw: " + failure);
        }
    }

    private TaskMailbox watching(TaskMailbox mailbox) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("put") && args != null && args.length == 1 && args[0] instanceof Mail) {
                Mail mail = (Mail) args[0];
                if (RETHROW_MAIL.equals(mail.toString())) {
                    pendingFailure = mail;
                }
            }
            try {
                return method.invoke(mailbox, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (TaskMailbox) Proxy.newProxyInstance(TaskMailbox.class.getClassLoader(), new Class<?>[] {TaskMailbox.class},
                handler);
    }

    /**
     * Refuses an operator class whose code does not describe a mail as {@value #RETHROW_MAIL}:
     * the guard would never see an action fail. Checked on the class file itself, where the
     * description is a string constant, once per class.
     *
     * @throws IllegalStateException naming the class, where it was loaded from and the description
     */
    static void requireRethrowMailDescribed(Class<?> operator) {
        if (!DESCRIBES_RETHROW_MAIL.get(operator)) {
            throw new IllegalStateException(operator.getName() + " (from " + codeSource(operator) + ") does not describe a mail as '"
                    + RETHROW_MAIL + "', the mail by which Flink Agents' operator fails the task after an action threw; "
                    + "without it this guard cannot keep a checkpoint from being taken without the failed action's input. "
                    + "This durable-journal adapter supports Flink Agents " + FlinkAgentsCompatibility.SUPPORTED_VERSIONS
                    + ": use one of those, or a durable-journal release updated for this operator");
        }
    }

    /** Whether a class file holds {@link #RETHROW_MAIL} as a constant (a CONSTANT_Utf8 entry of exactly that text). */
    private static final ClassValue<Boolean> DESCRIBES_RETHROW_MAIL = new ClassValue<Boolean>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            byte[] text = RETHROW_MAIL.getBytes(StandardCharsets.UTF_8); // ASCII: its modified UTF-8 is the same
            byte[] constant = new byte[3 + text.length];
            constant[0] = 1; // CONSTANT_Utf8, then its length as a u2
            constant[1] = (byte) (text.length >>> 8);
            constant[2] = (byte) text.length;
            System.arraycopy(text, 0, constant, 3, text.length);
            // Latin-1 maps each byte to one char: a search for the bytes, done by String.
            return new String(classFile(type), StandardCharsets.ISO_8859_1).contains(new String(constant, StandardCharsets.ISO_8859_1));
        }
    };

    private static byte[] classFile(Class<?> type) {
        String resource = type.getName().replace('.', '/') + ".class";
        ClassLoader loader = type.getClassLoader() != null ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("cannot read the class file " + resource + " to check the rethrow mail of Flink Agents' operator");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the class file " + resource, e);
        }
    }

    private static String codeSource(Class<?> type) {
        java.security.CodeSource source = type.getProtectionDomain().getCodeSource();
        return source == null || source.getLocation() == null ? "an unknown location" : source.getLocation().toString();
    }

    private static <T> T field(MailboxExecutorImpl executor, String name, Class<T> type) {
        try {
            Field field = MailboxExecutorImpl.class.getDeclaredField(name);
            field.setAccessible(true);
            return type.cast(field.get(executor));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read MailboxExecutorImpl." + name + " of this Flink version to guard"
                    + " Flink Agents' operator against losing the input of a failed action", e);
        }
    }
}
