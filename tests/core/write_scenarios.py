"""Stories for the write path, in Chinese and English: what the memory must hold afterwards.

Each story is a list of user messages, one ``add`` each. ``tests/core/test_write_scenarios.py``
runs every story of several steps twice: all steps in one session, and one session per step
(how an adapter with one thread per conversation writes). After the last step:

- ``change``: a current memory says ``now``; no current memory says ``stale`` (it stays in
  the evolution chain), and a search for ``query`` shows no stale value in its top 3.
- ``adds_up``: every one of ``keep`` is current (SUPPLEMENT, not OVERRIDE).
- ``repeat``: exactly one current memory says ``now``.
- ``noise``: nothing is stored as a fact or profile item (the raw turn stays).
- ``durable``: a current memory says ``keep``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Story:
    kind: str
    lang: str
    steps: tuple[str, ...]
    now: str = ""
    stale: str = ""
    query: str = ""
    keep: tuple[str, ...] = field(default_factory=tuple)

    @property
    def id(self) -> str:
        return f"{self.kind}-{self.lang}-{self.steps[-1][:24]}"


def change(lang: str, *steps: str, now: str, stale: str, query: str) -> Story:
    return Story("change", lang, steps, now=now, stale=stale, query=query)


def adds_up(lang: str, *steps: str, keep: tuple[str, ...]) -> Story:
    return Story("adds_up", lang, steps, keep=keep)


def repeat(lang: str, *steps: str, now: str) -> Story:
    return Story("repeat", lang, steps, now=now)


def noise(lang: str, *steps: str) -> Story:
    return Story("noise", lang, steps)


def durable(lang: str, step: str, keep: str) -> Story:
    return Story("durable", lang, (step,), keep=(keep,))


CHANGES = [
    # residence, work city
    change("zh", "我住在上海", "我上个月搬到北京了", now="北京", stale="上海", query="住在哪里"),
    change("zh", "我家在成都", "我们全家已经搬到重庆了", now="重庆", stale="成都", query="住哪"),
    change(
        "zh",
        "我在深圳工作了三年",
        "我今年从深圳调到杭州工作了",
        now="杭州",
        stale="在深圳工作",
        query="工作城市",
    ),
    change(
        "en",
        "I live in Berlin.",
        "I moved to Munich last month.",
        now="Munich",
        stale="Berlin",
        query="where do I live",
    ),
    change(
        "en",
        "I live in Seattle.",
        "We relocated to Austin in the spring.",
        now="Austin",
        stale="Seattle",
        query="home city",
    ),
    change(
        "en",
        "I'm based in London.",
        "I now live in Dublin.",
        now="Dublin",
        stale="London",
        query="where I live",
    ),
    # employer, role
    change(
        "zh",
        "我在阿里巴巴做数据工程师",
        "我已经从阿里离职，加入了字节跳动",
        now="字节跳动",
        stale="阿里巴巴",
        query="在哪家公司工作",
    ),
    change("zh", "我在腾讯上班", "我跳槽到美团了", now="美团", stale="腾讯", query="公司"),
    change(
        "zh", "我是一名产品经理", "我现在是架构师了", now="架构师", stale="产品经理", query="职业"
    ),
    change(
        "en",
        "I work at Google.",
        "I joined Stripe this month.",
        now="Stripe",
        stale="Google",
        query="employer",
    ),
    change(
        "en",
        "I work for Acme Corp.",
        "I quit Acme Corp and now work at Initech.",
        now="Initech",
        stale="work for Acme",
        query="where do I work",
    ),
    change(
        "en",
        "I'm a backend engineer.",
        "I'm now an engineering manager.",
        now="manager",
        stale="backend engineer",
        query="my job",
    ),
    # vehicle, phone, computer
    change(
        "en",
        "I drive a 2015 Honda Civic.",
        "I sold the Civic and bought a Tesla Model 3.",
        now="Tesla",
        stale="drive a 2015 Honda Civic",
        query="what car do I drive",
    ),
    change(
        "en",
        "My car is a Toyota Corolla.",
        "I just bought a new BMW X3.",
        now="BMW",
        stale="Corolla",
        query="car",
    ),
    change(
        "zh",
        "我开的是大众帕萨特",
        "我换了一辆比亚迪汉",
        now="比亚迪",
        stale="帕萨特",
        query="开什么车",
    ),
    change(
        "zh",
        "我用的手机是 iPhone 12",
        "我换了新手机，现在用华为 Mate 60",
        now="Mate 60",
        stale="iPhone 12",
        query="手机",
    ),
    change(
        "en",
        "My phone is an iPhone 13.",
        "I switched to a Pixel 8.",
        now="Pixel",
        stale="iPhone 13",
        query="what phone do I use",
    ),
    change(
        "en",
        "I use a ThinkPad X1 for work.",
        "I switched to a MacBook Pro M3.",
        now="MacBook",
        stale="ThinkPad",
        query="laptop",
    ),
    # tools, versions, schedules
    change(
        "zh",
        "项目用 PostgreSQL 16 做主数据库",
        "项目数据库升级到 PostgreSQL 17 了",
        now="17",
        stale="PostgreSQL 16",
        query="数据库版本",
    ),
    change(
        "zh",
        "我们用 Jenkins 做 CI",
        "我们把 Jenkins 换成了 GitHub Actions",
        now="GitHub Actions",
        stale="用 Jenkins 做",
        query="CI 工具",
    ),
    change(
        "zh",
        "站会在每周一上午10点",
        "站会改到周三上午10点了",
        now="周三",
        stale="周一",
        query="站会时间",
    ),
    change(
        "en",
        "Our project runs on Python 3.10.",
        "We upgraded the project to Python 3.12.",
        now="3.12",
        stale="3.10",
        query="python version",
    ),
    change(
        "en",
        "The weekly sync is on Mondays at 9am.",
        "The weekly sync moved to Thursday at 2pm.",
        now="Thursday",
        stale="Mondays",
        query="weekly sync time",
    ),
    change(
        "en",
        "We use MySQL for the orders service.",
        "We migrated the orders service from MySQL to PostgreSQL.",
        now="PostgreSQL",
        stale="use MySQL",
        query="orders database",
    ),
    change(
        "en",
        "My editor is Vim.",
        "I don't use Vim anymore, I use VS Code now.",
        now="VS Code",
        stale="editor is Vim",
        query="code editor",
    ),
    # preferences, habits, diet
    change(
        "zh",
        "我最喜欢的颜色是蓝色",
        "我现在最喜欢的颜色是绿色",
        now="绿色",
        stale="蓝色",
        query="喜欢的颜色",
    ),
    change(
        "zh", "我每天早上喝咖啡", "我戒了咖啡", now="戒了咖啡", stale="每天早上喝咖啡", query="咖啡"
    ),
    change("zh", "我吃素", "我不吃素了", now="不吃素", stale="我吃素", query="饮食"),
    change(
        "zh",
        "我最爱的编程语言是 Java",
        "我最爱的编程语言变成了 Rust",
        now="Rust",
        stale="Java",
        query="编程语言偏好",
    ),
    change(
        "en",
        "My favorite drink is coffee.",
        "My favorite drink is green tea now.",
        now="green tea",
        stale="coffee",
        query="favorite drink",
    ),
    change(
        "en",
        "I'm vegetarian.",
        "I'm not vegetarian anymore.",
        now="not vegetarian",
        stale="I'm vegetarian",
        query="diet",
    ),
    change(
        "en",
        "I smoke about half a pack a day.",
        "I quit smoking last month.",
        now="quit smoking",
        stale="half a pack",
        query="smoking",
    ),
    change(
        "en",
        "My name is Katherine.",
        "Please call me Kate from now on.",
        now="Kate",
        stale="Katherine",
        query="my name",
    ),
    change("zh", "我叫王小明", "我改名叫王明了", now="王明", stale="王小明", query="名字"),
    change(
        "zh",
        "我现在用 Vim 写代码",
        "我不再用 Vim 了，改用 Cursor",
        now="Cursor",
        stale="用 Vim 写",
        query="编辑器",
    ),
    change(
        "en",
        "I have 2 cats.",
        "I have 3 cats now.",
        now="3 cats",
        stale="2 cats",
        query="how many cats",
    ),
    change("zh", "团队有8个人", "团队扩到了12个人", now="12", stale="8个人", query="团队规模"),
    change(
        "zh",
        "周报截止时间是周五下午5点",
        "周报截止时间改到周四下午5点了",
        now="周四",
        stale="周五",
        query="周报截止",
    ),
    change(
        "en",
        "The release deadline is March 3.",
        "The release deadline was pushed to March 10.",
        now="March 10",
        stale="March 3",
        query="release deadline",
    ),
    change("zh", "我住在杭州西湖区", "我搬到上海了", now="上海", stale="杭州", query="住址"),
]

ADDS_UP = [
    adds_up("zh", "我喜欢 Python", "我也喜欢 Go", keep=("Python", "Go")),
    adds_up("zh", "我有一个女儿", "我还有一个儿子，今年三岁", keep=("女儿", "儿子")),
    adds_up("zh", "我喜欢爬山", "我也喜欢游泳", keep=("爬山", "游泳")),
    adds_up("zh", "我会说英语", "我还会说日语", keep=("英语", "日语")),
    adds_up("zh", "我住在上海", "我下个月要搬去北京", keep=("上海", "北京")),
    adds_up("zh", "我养了一只猫", "我还养了一条狗", keep=("猫", "狗")),
    adds_up("zh", "我对花生过敏", "我对海鲜也过敏", keep=("花生", "海鲜")),
    adds_up("zh", "项目前端用 React", "项目后端用 Go", keep=("React", "Go")),
    adds_up("en", "I love hiking.", "I also enjoy swimming.", keep=("hiking", "swimming")),
    adds_up(
        "en", "I have a daughter named Emma.", "I also have a son named Leo.", keep=("Emma", "Leo")
    ),
    adds_up("en", "I speak English.", "I also speak Spanish.", keep=("English", "Spanish")),
    adds_up("en", "I like Python.", "I like Rust too.", keep=("Python", "Rust")),
    adds_up(
        "en",
        "I live in Berlin.",
        "I'm planning to move to Munich next year.",
        keep=("Berlin", "Munich"),
    ),
    adds_up(
        "en",
        "I'm allergic to peanuts.",
        "I'm also allergic to shellfish.",
        keep=("peanuts", "shellfish"),
    ),
    adds_up("en", "Our frontend uses React.", "Our backend uses Django.", keep=("React", "Django")),
    adds_up("en", "I play the guitar.", "I started learning the piano.", keep=("guitar", "piano")),
]

REPEATS = [
    repeat("zh", "我住在上海", "我住在上海", now="上海"),
    repeat("zh", "我对花生过敏", "我对花生过敏。", now="花生"),
    repeat("zh", "我在字节跳动工作", "我在字节跳动工作", "我在字节跳动工作", now="字节跳动"),
    repeat("zh", "我最喜欢的颜色是蓝色", "我最喜欢的颜色是蓝色！", now="蓝色"),
    repeat("zh", "我儿子叫小明", "嗯，我儿子叫小明", now="小明"),
    repeat(
        "zh",
        "项目用 PostgreSQL 16 做主数据库",
        "项目用 PostgreSQL 16 做主数据库",
        now="PostgreSQL 16",
    ),
    repeat("zh", "我每周五晚上打羽毛球", "我每周五晚上打羽毛球", now="羽毛球"),
    repeat("en", "I live in Berlin.", "I live in Berlin.", now="Berlin"),
    repeat("en", "I own a red bike.", "I own a red bike.", "I own a red bike.", now="red bike"),
    repeat("en", "My favorite color is blue.", "my favorite color is blue", now="blue"),
    repeat("en", "I'm allergic to peanuts.", "Yes, I'm allergic to peanuts.", now="peanuts"),
    repeat("en", "My son's name is Leo.", "My son's name is Leo.", now="Leo"),
    repeat(
        "en",
        "We use PostgreSQL 16 for the main database.",
        "We use PostgreSQL 16 for the main database.",
        now="PostgreSQL 16",
    ),
    repeat("en", "I work at Stripe.", "I work at Stripe.", now="Stripe"),
]

NOISE = [
    noise("en", "Remind me which city I live in"),
    noise("en", "Say my son's name again"),
    noise("en", "I think you're wrong about that"),
    noise("en", "Let me think about it"),
    noise("en", "Forget what I just said"),
    noise("en", "Can you recommend a good book?"),
    noise("en", "Translate this into French: good morning"),
    noise("en", "Tell me a joke"),
    noise("en", "Thanks, that's great!"),
    noise("en", "That's not what I asked."),
    noise("en", "What's the weather like tomorrow?"),
    noise("en", "Write a haiku about autumn"),
    noise("en", "Ok sounds good"),
    noise("en", "Do you remember my name?"),
    noise("en", "I want you to summarize this article for me"),
    noise("en", "Never mind"),
    noise("zh", "把这句话翻译成英文：早上好"),
    noise("zh", "讲个笑话吧"),
    noise("zh", "我想想再说"),
    noise("zh", "帮我写一封请假邮件"),
    noise("zh", "你说得不对"),
    noise("zh", "忘掉我刚才说的"),
    noise("zh", "好的，谢谢"),
    noise("zh", "今天天气怎么样？"),
    noise("zh", "你还记得我叫什么吗"),
    noise("zh", "给我推荐几本书"),
    noise("zh", "总结一下这篇文章"),
    noise("zh", "算了，不用了"),
    noise("zh", "哈哈哈，太好笑了"),
    noise("zh", "你记错了"),
    noise("zh", "再来一个"),
    noise("zh", "提醒我一下我住在哪"),
]

DURABLE = [
    durable("zh", "我儿子叫小明，今年五岁", "小明"),
    durable("zh", "我对青霉素过敏", "青霉素"),
    durable("zh", "我们决定用 Kafka 做事件总线", "Kafka"),
    durable("zh", "我下周三要去上海出差", "上海出差"),
    durable("zh", "我老婆是医生", "医生"),
    durable("zh", "我平时习惯早上六点起床跑步", "跑步"),
    durable("zh", "记住：我不吃香菜", "香菜"),
    durable("zh", "我正在准备考研", "考研"),
    durable("zh", "我的生日是5月20日", "5月20日"),
    durable("zh", "我们团队的代码规范要求所有函数都有类型注解", "类型注解"),
    durable("en", "My daughter Lily started school this year.", "Lily"),
    durable("en", "I'm allergic to penicillin.", "penicillin"),
    durable("en", "We decided to use Kafka for the event bus.", "Kafka"),
    durable("en", "I'm flying to Tokyo next Friday.", "Tokyo"),
    durable("en", "My wife is a nurse.", "nurse"),
    durable("en", "I usually go running at 6am.", "running"),
    durable("en", "Remember that I don't eat cilantro.", "cilantro"),
    durable("en", "I'm training for a marathon in October.", "marathon"),
    durable("en", "Remind me to call my mom tomorrow.", "call my mom"),
    durable("en", "Our API must require authentication on every endpoint.", "authentication"),
]

STORIES: list[Story] = [*CHANGES, *ADDS_UP, *REPEATS, *NOISE, *DURABLE]
