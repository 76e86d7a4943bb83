package io.durablejournal.flinkagents;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperatorFactory;

/**
 * The guard list: every Flink Agents version the adapter supports, each with the shape the
 * adapter was written against and the shim ({@link FlinkAgentsShim}) that fits it; and the check,
 * when the operator is created, that picks the shim of the Flink Agents on the classpath.
 *
 * <p>The adapter overrides every public method of {@code RunnerContextImpl.DurableExecutionContext},
 * implements every method of {@code RunnerContext} and of the {@code ActionStateStore} SPI, and
 * its shims call the operator's and the plan's constructors. A Flink Agents that adds a journal
 * method (apache/flink-agents#926 adds six) would reach Flink Agents' own journal behind the
 * adapter's back; a new {@code RunnerContext} method would be missing from the adapter's context;
 * a new store hook (#1024, #1100) would keep its default, unknown to the store; a changed
 * constructor (#887) would fail with a {@code NoSuchMethodError} deep in Flink. So a version is
 * used only when every one of these matches one supported shape exactly; otherwise the job fails
 * at the start, naming the nearest supported version and the members that differ from it.
 */
final class FlinkAgentsCompatibility {
    /** How the members found on the classpath must compare with a shape's. */
    enum Rule {
        /** Every member found is known (the adapter overrides or implements them all); fewer is harmless. */
        NO_UNKNOWN,
        /** The members found are exactly the known ones. */
        EXACT,
        /** Every known member is found (the shim calls them); others may be added. */
        PRESENT
    }

    /** A part of Flink Agents' public surface the adapter depends on. */
    enum Surface {
        JOURNAL("public methods of " + RunnerContextImpl.DurableExecutionContext.class.getName(), Rule.NO_UNKNOWN,
                () -> publicInstanceMethods(RunnerContextImpl.DurableExecutionContext.class)),
        RUNNER_CONTEXT("methods of " + RunnerContext.class.getName(), Rule.NO_UNKNOWN,
                () -> interfaceMethods(RunnerContext.class)),
        STORE_SPI("methods of the store SPI " + ActionStateStore.class.getName(), Rule.EXACT,
                () -> interfaceMethods(ActionStateStore.class)),
        OPERATOR_CONSTRUCTORS("public constructors of " + ActionExecutionOperator.class.getName(), Rule.EXACT,
                () -> publicConstructors(ActionExecutionOperator.class)),
        FACTORY_CONSTRUCTORS("public constructors of " + ActionExecutionOperatorFactory.class.getName(), Rule.EXACT,
                () -> publicConstructors(ActionExecutionOperatorFactory.class)),
        PLAN("members of " + AgentPlan.class.getName() + " and " + Action.class.getName() + " the shim calls", Rule.PRESENT,
                () -> union(publicConstructors(AgentPlan.class), publicInstanceMethods(AgentPlan.class),
                        publicInstanceMethods(Action.class))),
        CONTEXT_EXTRAS("members of " + RunnerContextImpl.class.getName() + " the shim calls", Rule.PRESENT,
                () -> union(publicInstanceMethods(RunnerContextImpl.class), interfacesOf(RunnerContextImpl.class)));

        final String what;
        final Rule rule;
        private final Supplier<Set<String>> onClasspath;

        Surface(String what, Rule rule, Supplier<Set<String>> onClasspath) {
            this.what = what;
            this.rule = rule;
            this.onClasspath = onClasspath;
        }
    }

    /** A supported Flink Agents version: its shape, by surface, and the class name of its shim. */
    static final class Shape {
        final String version;
        final String shimClass;
        final Map<Surface, Set<String>> members;

        Shape(String version, String shimClass, Map<Surface, Set<String>> members) {
            if (!members.keySet().containsAll(Arrays.asList(Surface.values()))) {
                throw new IllegalArgumentException("the shape of Flink Agents " + version + " lacks a surface");
            }
            this.version = version;
            this.shimClass = shimClass;
            this.members = Collections.unmodifiableMap(members);
        }
    }

    static final Set<String> JOURNAL_METHODS = set(
            "getCurrentCallIndex()",
            "getActionState()",
            "getCurrentCallResult()",
            "matchNextOrClearSubsequentCallResult(java.lang.String,java.lang.String)",
            "recordCallCompletion(java.lang.String,java.lang.String,byte[],byte[])",
            "appendPendingCall(java.lang.String,java.lang.String)",
            "finalizeCurrentCall(java.lang.String,java.lang.String,byte[],byte[])",
            "clearCallResultsFromCurrentIndexAndPersist()");

    static final Set<String> RUNNER_CONTEXT_METHODS = set(
            "sendEvent(org.apache.flink.agents.api.Event)",
            "getSensoryMemory()",
            "getShortTermMemory()",
            "getLongTermMemory()",
            "getAgentMetricGroup()",
            "getActionMetricGroup()",
            "getResource(java.lang.String,org.apache.flink.agents.api.resource.ResourceType)",
            "getConfig()",
            "getActionConfig()",
            "getActionConfigValue(java.lang.String)",
            "durableExecute(org.apache.flink.agents.api.context.DurableCallable)",
            "durableExecuteAsync(org.apache.flink.agents.api.context.DurableCallable)",
            "close()");

    static final Set<String> STORE_METHODS = set(
            "put(java.lang.Object,long,org.apache.flink.agents.plan.actions.Action,org.apache.flink.agents.api.Event,"
                    + "org.apache.flink.agents.runtime.actionstate.ActionState)",
            "get(java.lang.Object,long,org.apache.flink.agents.plan.actions.Action,org.apache.flink.agents.api.Event)",
            "rebuildState(java.util.List)",
            "pruneState(java.lang.Object,long)",
            "getRecoveryMarker()",
            "close()");

    private static final String OPERATOR = "ActionExecutionOperator(org.apache.flink.agents.plan.AgentPlan,java.lang.Boolean,";
    private static final String OPERATOR_TAIL = "org.apache.flink.streaming.runtime.tasks.ProcessingTimeService,"
            + "org.apache.flink.api.common.operators.MailboxExecutor,"
            + "org.apache.flink.agents.runtime.actionstate.ActionStateStore)";
    private static final String FACTORY = "ActionExecutionOperatorFactory(org.apache.flink.agents.plan.AgentPlan,java.lang.Boolean";
    private static final String REPORT = "(java.lang.String,java.lang.String,java.util.Map";

    /** Flink Agents 0.3.1. */
    static final Shape V0_3_1 = new Shape("0.3.1", "io.durablejournal.flinkagents.FlinkAgents03", surfaces(
            JOURNAL_METHODS, RUNNER_CONTEXT_METHODS, STORE_METHODS,
            set(OPERATOR + OPERATOR_TAIL),
            set(FACTORY + ")"),
            set("AgentPlan(java.util.Map,java.util.Map,java.util.Map,org.apache.flink.agents.plan.AgentConfiguration)",
                    "getActionsByEvent()", "getResourceProviders()", "getConfig()", "getListenEventTypes()"),
            Collections.emptySet()));

    /** Flink Agents main at 8ad3a32b (0.4-SNAPSHOT), as built into ../shared/m2. */
    static final Shape V0_4_MAIN_8AD3A32B = new Shape("0.4-main-8ad3a32b", "io.durablejournal.flinkagents.FlinkAgents04",
            surfaces(JOURNAL_METHODS, RUNNER_CONTEXT_METHODS, STORE_METHODS,
                    set(OPERATOR + "boolean," + OPERATOR_TAIL),
                    set(FACTORY + ")", FACTORY + ",boolean)"),
                    set("AgentPlan(java.util.Map,java.util.Map,org.apache.flink.agents.plan.AgentConfiguration,java.lang.String)",
                            "getAgentName()", "getResourceProviders()", "getConfig()", "getTriggerConditions()"),
                    set("implements org.apache.flink.agents.api.trace.ExecutionReporter",
                            "reportExecutionStarted" + REPORT + ")", "reportExecutionSucceeded" + REPORT + ")",
                            "reportExecutionFailed" + REPORT + ",java.lang.Throwable,java.lang.String)")));

    /** The guard list, oldest first: a new supported version adds its shape here (and its shim). */
    static final List<Shape> SUPPORTED = Collections.unmodifiableList(Arrays.asList(V0_3_1, V0_4_MAIN_8AD3A32B));

    /** The supported versions, for messages. */
    static final String SUPPORTED_VERSIONS = SUPPORTED.stream().map(s -> s.version).collect(Collectors.joining(", "));

    private static volatile FlinkAgentsShim shim;

    private FlinkAgentsCompatibility() {}

    /**
     * The shim of the Flink Agents on the classpath (checked and loaded once).
     *
     * @throws IllegalStateException when it matches no supported shape, naming the nearest one and
     *     what differs from it
     */
    static FlinkAgentsShim shim() {
        FlinkAgentsShim found = shim;
        if (found == null) {
            synchronized (FlinkAgentsCompatibility.class) {
                found = shim;
                if (found == null) {
                    found = load(check());
                    shim = found;
                }
            }
        }
        return found;
    }

    /** The supported shape the Flink Agents on the classpath has; throws when there is none. */
    static Shape check() {
        return matching(onClasspath(), flinkAgentsVersion());
    }

    /**
     * The first supported shape the members found match; else an {@link IllegalStateException}
     * naming the nearest supported version (fewest members differing) and every difference from it.
     */
    static Shape matching(Map<Surface, Set<String>> found, String foundVersion) {
        Shape nearest = null;
        List<String> nearestProblems = null;
        int nearestDistance = Integer.MAX_VALUE;
        for (Shape shape : SUPPORTED) {
            List<String> problems = new ArrayList<>();
            int distance = 0;
            for (Surface surface : Surface.values()) {
                Set<String> extra = new TreeSet<>(found.get(surface));
                extra.removeAll(shape.members.get(surface));
                Set<String> missing = new TreeSet<>(shape.members.get(surface));
                missing.removeAll(found.get(surface));
                if (surface.rule == Rule.NO_UNKNOWN) {
                    missing.clear();
                } else if (surface.rule == Rule.PRESENT) {
                    extra.clear();
                }
                distance += extra.size() + missing.size();
                problems.addAll(difference(surface.what, extra, missing));
            }
            if (problems.isEmpty()) {
                return shape;
            }
            if (distance < nearestDistance) {
                nearest = shape;
                nearestProblems = problems;
                nearestDistance = distance;
            }
        }
        throw new IllegalStateException("durable-journal's native journal does not know this Flink Agents (" + foundVersion
                + "; supported: " + SUPPORTED_VERSIONS + "). Nearest supported version: " + nearest.version
                + ", from which it differs in: " + String.join("; ", nearestProblems)
                + ". Use a supported Flink Agents version, or a durable-journal release that supports this one");
    }

    private static List<String> difference(String what, Set<String> extra, Set<String> missing) {
        List<String> problems = new ArrayList<>();
        if (!extra.isEmpty()) {
            problems.add(what + " that the adapter does not know: " + String.join(", ", extra));
        }
        if (!missing.isEmpty()) {
            problems.add(what + " that are missing: " + String.join(", ", missing));
        }
        return problems;
    }

    private static FlinkAgentsShim load(Shape shape) {
        try {
            return (FlinkAgentsShim) Class.forName(shape.shimClass, true, FlinkAgentsCompatibility.class.getClassLoader())
                    .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("cannot load " + shape.shimClass + ", the adapter's shim for Flink Agents "
                    + shape.version + " (is this jar complete?)", e);
        }
    }

    /** The members found on the classpath of every surface, as {@link #check} compares them. */
    static Map<Surface, Set<String>> onClasspath() {
        Map<Surface, Set<String>> found = new LinkedHashMap<>();
        for (Surface surface : Surface.values()) {
            found.put(surface, surface.onClasspath.get());
        }
        return found;
    }

    static Set<String> publicInstanceMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic())
                .map(FlinkAgentsCompatibility::signature)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<String> interfaceMethods(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .map(FlinkAgentsCompatibility::signature)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<String> publicConstructors(Class<?> type) {
        Set<String> found = new TreeSet<>();
        for (Constructor<?> constructor : type.getConstructors()) {
            found.add(type.getSimpleName() + parameters(constructor.getParameterTypes()));
        }
        return found;
    }

    private static Set<String> interfacesOf(Class<?> type) {
        return Arrays.stream(type.getInterfaces()).map(i -> "implements " + i.getName())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new TreeSet<>();
        for (Set<String> members : sets) {
            all.addAll(members);
        }
        return all;
    }

    private static String signature(Method method) {
        return method.getName() + parameters(method.getParameterTypes());
    }

    private static String parameters(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getTypeName).collect(Collectors.joining(",", "(", ")"));
    }

    private static String flinkAgentsVersion() {
        Package p = ActionExecutionOperator.class.getPackage();
        String version = p == null ? null : p.getImplementationVersion();
        return version == null ? "version unknown" : "version " + version;
    }

    private static Map<Surface, Set<String>> surfaces(Set<String> journal, Set<String> runnerContext, Set<String> store,
            Set<String> operator, Set<String> factory, Set<String> plan, Set<String> contextExtras) {
        Map<Surface, Set<String>> members = new LinkedHashMap<>();
        members.put(Surface.JOURNAL, journal);
        members.put(Surface.RUNNER_CONTEXT, runnerContext);
        members.put(Surface.STORE_SPI, store);
        members.put(Surface.OPERATOR_CONSTRUCTORS, operator);
        members.put(Surface.FACTORY_CONSTRUCTORS, factory);
        members.put(Surface.PLAN, plan);
        members.put(Surface.CONTEXT_EXTRAS, contextExtras);
        return members;
    }

    private static Set<String> set(String... members) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(members)));
    }
}
