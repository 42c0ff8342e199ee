"""``MemHubStore`` under LangChain's ``create_agent`` (plain items) and LangMem's memory tools
(``("memories", user)``: memhub's memory, written through ``add`` and ``update``)."""

from __future__ import annotations

from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langmem import create_manage_memory_tool, create_search_memory_tool
from lg_fakes import scripted, tool_call

from memhub_langgraph import MemHubStore, namespace_scope


@tool
def remember_preference(preference: str, runtime: ToolRuntime) -> str:
    """Save a preference of the current user."""
    user = runtime.config["configurable"]["user_id"]
    runtime.store.put(("prefs", user), "favourite", {"text": preference})
    return "saved"


@tool
def recall_preference(runtime: ToolRuntime) -> str:
    """Read the current user's saved preference."""
    item = runtime.store.get(("prefs", runtime.config["configurable"]["user_id"]), "favourite")
    return item.value["text"] if item else "nothing saved"


def _tool_outputs(result: dict) -> list[str]:
    return [m.text for m in result["messages"] if isinstance(m, ToolMessage)]


def test_create_agent_tools_read_and_write_runtime_store(make_client):
    store = MemHubStore(make_client(), scope=namespace_scope(user_id=1))
    alice = {"configurable": {"user_id": "alice"}}

    writer = create_agent(
        scripted(tool_call("remember_preference", preference="green tea"), "Saved."),
        [remember_preference, recall_preference],
        store=store,
    )
    writer.invoke({"messages": [("user", "I love green tea")]}, alice)

    reader_model = scripted(tool_call("recall_preference"), "You like green tea.")
    reader = create_agent(reader_model, [remember_preference, recall_preference], store=store)
    assert _tool_outputs(reader.invoke({"messages": [("user", "what do I like?")]}, alice)) == [
        "green tea"
    ]
    assert "green tea" in reader_model.prompt_text()  # the tool result reached the model

    bob_model = scripted(tool_call("recall_preference"), "Nothing yet.")
    bob = create_agent(bob_model, [recall_preference], store=store)
    assert _tool_outputs(
        bob.invoke(
            {"messages": [("user", "what do I like?")]}, {"configurable": {"user_id": "bob"}}
        )
    ) == ["nothing saved"]
    # The item carries the user's scope, so memhub can find (or erase) everything of alice's.
    assert store.get(("prefs", "alice"), "favourite").value == {"text": "green tea"}
    store.close()


async def test_create_agent_async_with_runtime_store(make_client):
    store = MemHubStore(make_client())
    agent = create_agent(
        scripted(tool_call("remember_preference", preference="jazz"), "ok"),
        [remember_preference],
        store=store,
    )
    await agent.ainvoke(
        {"messages": [("user", "I like jazz")]}, {"configurable": {"user_id": "carol"}}
    )
    assert (await store.aget(("prefs", "carol"), "favourite")).value == {"text": "jazz"}
    await store.aclose()


def test_langmem_manage_and_search_memory_tools(make_client):
    store = MemHubStore(make_client(), scope=namespace_scope(user_id=1))
    namespace = ("memories", "{langgraph_user_id}")
    tools = [
        create_manage_memory_tool(namespace=namespace),
        create_search_memory_tool(namespace=namespace),
    ]
    alice = {"configurable": {"langgraph_user_id": "alice"}}

    writer = create_agent(
        scripted(
            tool_call("manage_memory", action="create", content="I am allergic to shellfish"),
            tool_call(
                "manage_memory",
                "call-2",
                action="create",
                content="I play the cello on Sundays",
            ),
            "Noted both.",
        ),
        tools,
        store=store,
    )
    writer.invoke({"messages": [("user", "Remember: shellfish allergy, cello on Sundays")]}, alice)
    stored = store.search(("memories", "alice"))
    assert sorted(i.value["content"] for i in stored) == [
        "I am allergic to shellfish",
        "I play the cello on Sundays",
    ]

    reader_model = scripted(
        tool_call("search_memory", query="food allergy shellfish"), "Avoid shellfish."
    )
    reader = create_agent(reader_model, tools, store=store)
    outputs = _tool_outputs(reader.invoke({"messages": [("user", "What can't I eat?")]}, alice))
    assert "I am allergic to shellfish" in outputs[0]
    # Hybrid search ranks the matching memory first in what the tool returned to the model.
    assert outputs[0].index("shellfish") < outputs[0].index("cello")
    assert "shellfish" in reader_model.prompt_text()

    bob_model = scripted(
        tool_call("search_memory", query="food allergy shellfish"), "Nothing known."
    )
    bob_out = _tool_outputs(
        create_agent(bob_model, tools, store=store).invoke(
            {"messages": [("user", "What can't I eat?")]},
            {"configurable": {"langgraph_user_id": "bob"}},
        )
    )
    assert "shellfish" not in bob_out[0]

    # update and delete through the tool, by the id LangMem stored
    memory_id = next(i.key for i in stored if "cello" in i.value["content"])
    editor = create_agent(
        scripted(
            tool_call(
                "manage_memory",
                action="update",
                id=memory_id,
                content="I play the cello on Saturdays",
            ),
            tool_call(
                "manage_memory",
                "call-2",
                action="delete",
                id=next(i.key for i in stored if i.key != memory_id),
            ),
            "Done.",
        ),
        tools,
        store=store,
    )
    editor.invoke({"messages": [("user", "It's Saturdays now, and forget the allergy")]}, alice)
    assert [i.value["content"] for i in store.search(("memories", "alice"))] == [
        "I play the cello on Saturdays"
    ]
    store.close()


async def test_langmem_tools_async(make_client):
    store = MemHubStore(make_client())
    namespace = ("memories", "{langgraph_user_id}")
    tools = [
        create_manage_memory_tool(namespace=namespace),
        create_search_memory_tool(namespace=namespace),
    ]
    cfg = {"configurable": {"langgraph_user_id": "dora"}}
    await create_agent(
        scripted(
            tool_call("manage_memory", action="create", content="Dora speaks Portuguese"), "ok"
        ),
        tools,
        store=store,
    ).ainvoke({"messages": [("user", "I speak Portuguese")]}, cfg)
    out = await create_agent(
        scripted(tool_call("search_memory", query="languages Portuguese"), "ok"), tools, store=store
    ).ainvoke({"messages": [("user", "Which languages?")]}, cfg)
    assert "Dora speaks Portuguese" in _tool_outputs(out)[0]
    await store.aclose()
