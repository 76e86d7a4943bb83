package io.durablejournal.flinkagents;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.streaming.runtime.tasks.StreamTaskActionExecutor;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxExecutorImpl;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxProcessor;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;

/**
 * Keeps an action that throws from losing its input in Flink Agents 0.3.1's operator.
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
 */
final class ActionFailureGuard {
    /** The description {@code ActionExecutionOperator.tryProcessActionTaskForKey} (0.3.1) gives its rethrow mail. */
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
