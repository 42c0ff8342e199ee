"""The inspector's two languages: English text is the key, ``ZH`` its Chinese.

The language is the one the user picked (a cookie set by the switch in the page
header), else the browser's first choice between the two (``Accept-Language``).
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request

from memhub_server.ui.session import LANG_COOKIE

LANGUAGES = ("en", "zh")

ZH = {
    "Memory inspector": "记忆检查器",
    "Overview": "总览",
    "Memories": "记忆",
    "Search": "搜索",
    "Coding": "编码记忆",
    "Sign out": "退出",
    "Sign in": "登录",
    "API key": "API 密钥",
    "Sign in with an API key of this server (memhub keys create).": (
        "使用本服务的 API 密钥登录（memhub keys create）。"
    ),
    "Open the link with the token that memhub printed when it started.": (
        "请打开 memhub 启动时打印的带令牌的链接。"
    ),
    "Unknown API key.": "未知的 API 密钥。",
    "Tenant": "租户",
    "memories": "条记忆",
    "edges": "条关系",
    "Snapshot version": "快照版本",
    "Since the server started": "服务启动以来",
    "The counters of GET /metrics: every decision of the write judge, stored or not.": (
        "与 GET /metrics 同源的计数：写入裁决的每个决定，无论是否写入。"
    ),
    "Decision": "决定",
    "Requests": "请求数",
    "Mean ms": "平均毫秒",
    "Queues now": "当前队列",
    "on the engine's loop": "个在引擎事件循环上",
    "waiting for the embedder": "个等待嵌入模型",
    "Store size": "存储大小",
    "Users": "用户",
    "Apps": "应用",
    "Repositories": "代码仓库",
    "User": "用户",
    "App": "应用",
    "Agent": "智能体",
    "Session": "会话",
    "Repository": "仓库",
    "Branch": "分支",
    "Layer": "层",
    "Status": "状态",
    "Exposure": "暴露状态",
    "Epistemic": "认知等级",
    "Source": "来源",
    "Time": "时间",
    "Content": "内容",
    "Total": "合计",
    "Recent writes": "最近写入",
    "Decisions over time": "决策随时间变化",
    "Last 14 days, from the audit log.": "最近 14 天，来自审计日志。",
    "Nothing yet.": "暂无。",
    "Filter": "筛选",
    "Clear": "清除",
    "any": "全部",
    "Next page": "下一页",
    "First page": "第一页",
    "History": "历史",
    "Query": "查询",
    "As of": "截至日期",
    "valid from": "有效自",
    "User id (needed by search and search_conversation)": (
        "用户 ID（search 与 search_conversation 需要）"
    ),
    "What the agent would be given": "智能体将获得的内容",
    "turns": "轮对话",
    "Current state": "当前状态",
    "Version chain": "版本链",
    "newest first": "最新在前",
    "this memory": "本条记忆",
    "Status changes": "状态变化",
    "Epistemic changes": "认知等级变化",
    "Exposure changes": "暴露状态变化",
    "Related lessons": "相关教训",
    "Raw turns it was extracted from": "抽取来源的原始对话",
    "Actions": "操作",
    "Correct": "纠正",
    "Govern": "治理",
    "Update": "更新",
    "Delete": "删除",
    "Forget this user": "遗忘此用户",
    "Purge governed content from disk": "从磁盘清除被治理的内容",
    "Reason": "原因",
    "New content (replace)": "新内容（replace）",
    "Lesson (derive_lesson)": "教训内容（derive_lesson）",
    "New content": "新内容",
    "Review": "检查",
    "Confirm": "确认",
    "Cancel": "取消",
    "Please confirm": "请确认",
    "This will run": "将执行",
    "on": "作用于",
    "Done": "完成",
    "Failed": "失败",
    "Open the history": "查看历史",
    "Procedures": "工程经验",
    "Task": "任务",
    "Solution": "解决方案",
    "Files": "文件",
    "Versions": "版本",
    "Workspace": "工作区",
    "Handoff the next session starts with": "下一个会话开始时的交接",
    "Constraints": "约束",
    "who": "执行者",
    "when": "时间",
    "from": "从",
    "to": "到",
    "Show": "显示",
    "Not found.": "未找到。",
    "Error": "错误",
    "Back": "返回",
    "Forget a user": "遗忘一个用户",
    "Purge": "清除",
    "Store": "存储",
    "score": "得分",
    "writes a new version; this one becomes superseded": "写入新版本；本条变为已被取代",
    "marks it as false: gone from search, kept in history": "标记为错误：不再被搜索到，历史中保留",
    "raises it to actual": "提升为 actual（事实）",
    "raises it to necessary (a hard constraint)": "提升为 necessary（硬约束）",
    "lowers it to possible": "降为 possible（可能）",
    "hides it from every read until released": "在解除之前对所有读取隐藏",
    "makes a quarantined memory visible again": "让被隔离的记忆重新可见",
    "erases its text and vectors, and those of its lineage; history keeps a placeholder": (
        "抹去其文本与向量（连同其来源与派生记录）；历史中只留占位符"
    ),
    "erases everything but its id and times, and its lineage's": (
        "除 ID 与时间外全部抹去（连同其来源与派生记录）"
    ),
    "stores the lesson, then seals this memory": "保存教训，然后封存本条记忆",
    "writes a new version with the new content": "用新内容写入新版本",
    "archives it: gone from search, kept in history": "归档：不再被搜索到，历史中保留",
    "tombstones every memory of this user in the tenant": "将该用户在本租户中的全部记忆置为墓碑",
    "rewrites the store so sealed and tombstoned text is gone from disk": (
        "重写存储，使被封存和墓碑化的文本从磁盘上消失"
    ),
    "Version": "版本",
    "Counted at": "统计于",
}


def pick(request: Request) -> str:
    """``"zh"`` or ``"en"``: the switch's cookie, else the browser's first preference."""
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh"
        if tag.startswith("en"):
            return "en"
    return "en"


def translator(lang: str) -> Callable[[str], str]:
    if lang == "zh":
        return lambda text: ZH.get(text, text)
    return lambda text: text
